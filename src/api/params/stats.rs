//! Area statistics' parameters (`GET /v1/areas/stats` and its CSV path).

use super::province_param;
use crate::api::contract::*;
use crate::api::query::{self, Query};
use crate::error::ApiError;

#[derive(Debug, PartialEq)]
pub struct StatsParams {
    pub group_by: Option<GroupBy>,
    /// The measures asked for, by their place in `MEASURES`, in the order given.
    pub measures: Vec<usize>,
    pub province: Option<&'static str>,
    /// Municipality groups' page; None for the other groupings, which are not paged.
    pub page: Option<(i64, i64)>,
}

pub fn stats(mut q: Query) -> Result<StatsParams, ApiError> {
    let [group_by, measures, province, limit, offset] = STATS_PARAMS.map(|name| q.take(name));
    q.finish(&STATS_PARAMS)?;
    let group_by = group_by
        .map(|v| query::one_of("group_by", &v, &GROUP_BYS))
        .transpose()?;
    let measures = measure_list(measures.as_deref().unwrap_or(MEASURES_DEFAULT))?;
    let province = province_param(province)?;
    let limit = limit
        .map(|v| query::integer("limit", &v, STATS_LIMIT_MIN, STATS_LIMIT_MAX))
        .transpose()?;
    let offset = offset
        .map(|v| query::integer("offset", &v, OFFSET_MIN, OFFSET_MAX))
        .transpose()?;
    let page = match group_by {
        Some(GroupBy::Municipality) => Some((
            limit.unwrap_or(STATS_LIMIT_DEFAULT),
            offset.unwrap_or(OFFSET_DEFAULT),
        )),
        _ => {
            if let Some(name) = [("limit", limit), ("offset", offset)]
                .iter()
                .find_map(|(name, v)| v.map(|_| *name))
            {
                return Err(ApiError::invalid(
                    name,
                    format!("{name} pages municipality groups: give it with group_by=municipality"),
                ));
            }
            None
        }
    };
    Ok(StatsParams {
        group_by,
        measures,
        province,
        page,
    })
}

/// The measures named in `value`, in the order given, each a known one.
fn measure_list(value: &str) -> Result<Vec<usize>, ApiError> {
    query::list("measures", value, MEASURES.len())?
        .into_iter()
        .map(|m| {
            MEASURES
                .iter()
                .position(|known| *known == m)
                .ok_or_else(|| {
                    ApiError::not_one_of(
                        "measures",
                        format!("unknown measure '{m}': known are {}", MEASURES.join(", ")),
                        &MEASURES,
                    )
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(q: &str) -> Result<StatsParams, ApiError> {
        stats(Query::parse(q, &STATS_PARAMS).expect("a query"))
    }

    #[test]
    fn measures_default_to_the_truth_score_and_keep_their_order() {
        assert_eq!(parse("").unwrap().measures, [0]);
        assert_eq!(
            parse("measures=safety,truth_score").unwrap().measures,
            [1, 0]
        );
    }

    #[test]
    fn an_unknown_measure_names_the_known_ones() {
        match parse("measures=truth_score,crime") {
            Err(ApiError::InvalidParameter { param, allowed, .. }) => {
                assert_eq!(param, "measures");
                assert_eq!(allowed.unwrap().len(), MEASURES.len());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn only_municipality_groups_are_paged() {
        assert_eq!(
            parse("group_by=municipality").unwrap().page,
            Some((STATS_LIMIT_DEFAULT, 0))
        );
        assert!(parse("group_by=province&limit=5").is_err());
        assert!(parse("offset=5").is_err());
        assert!(parse("group_by=municipality&limit=1001").is_err());
    }
}
