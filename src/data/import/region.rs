//! The dataset's region: the box of longitude and latitude every imported
//! area must lie in (docs/import.md, "Coordinates"). South Africa's by
//! default, or one the operator sets with `import --region`. A point outside
//! is a problem of its row, and when the point with lat and lng swapped, or
//! with lat's sign turned, lies inside, the problem says which slip it
//! looks like, since those are the usual ones in a spreadsheet.

use std::path::Path;

/// A box of longitude and latitude, in degrees, edges included. It does not
/// cross the antimeridian (min_lng is west of max_lng).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Region {
    pub min_lng: f64,
    pub min_lat: f64,
    pub max_lng: f64,
    pub max_lat: f64,
    /// How messages name it: "South Africa's box" or "the --region box".
    pub name: &'static str,
}

/// South Africa's mainland: the extent of Natural Earth's admin 0 outline
/// of South Africa (16.34 to 32.83 E, 34.82 to 22.09 S), widened by some
/// 0.2 degree on each side for coastal points and the outline's
/// simplification. It holds Lesotho and Eswatini, and bits of the
/// neighbours, as any box would. The Prince Edward Islands (Marion Island,
/// 46.9 S 37.7 E) lie far outside and are out of the default's scope: a
/// dataset holding them sets its own box.
pub const SOUTH_AFRICA: Region = Region {
    min_lng: 16.0,
    min_lat: -35.1,
    max_lng: 33.1,
    max_lat: -21.8,
    name: "South Africa's box",
};

impl Default for Region {
    fn default() -> Region {
        SOUTH_AFRICA
    }
}

impl Region {
    /// `--region MIN_LNG,MIN_LAT,MAX_LNG,MAX_LAT`: four plain decimals, lng
    /// from -180 to 180 and lat from -90 to 90, each minimum below its maximum.
    pub fn parse(text: &str) -> Result<Region, String> {
        let form =
            "--region is MIN_LNG,MIN_LAT,MAX_LNG,MAX_LAT in degrees, such as 16,-35.1,33.1,-21.8";
        let numbers: Vec<Option<f64>> = text
            .split(',')
            .map(|n| super::rules::decimal(n.trim()))
            .collect();
        let [Some(min_lng), Some(min_lat), Some(max_lng), Some(max_lat)] = numbers[..] else {
            return Err(format!("{form}, not '{text}'"));
        };
        let lng_ok = |v: f64| (-180.0..=180.0).contains(&v);
        let lat_ok = |v: f64| (-90.0..=90.0).contains(&v);
        if !(lng_ok(min_lng) && lng_ok(max_lng) && lat_ok(min_lat) && lat_ok(max_lat)) {
            return Err(format!(
                "{form}: lng from -180 to 180 and lat from -90 to 90, not '{text}'"
            ));
        }
        if min_lng >= max_lng || min_lat >= max_lat {
            return Err(format!(
                "{form}: each minimum below its maximum (a box across the antimeridian is not supported), not '{text}'"
            ));
        }
        Ok(Region {
            min_lng,
            min_lat,
            max_lng,
            max_lat,
            name: "the --region box",
        })
    }

    /// The box as `--region` takes it and the dataset records it.
    pub fn text(&self) -> String {
        let Region {
            min_lng,
            min_lat,
            max_lng,
            max_lat,
            ..
        } = self;
        format!("{min_lng},{min_lat},{max_lng},{max_lat}")
    }

    /// The region an import checks against when `--region` is not given:
    /// the one the served dataset `db` recorded, else South Africa's.
    pub fn of_dataset(db: &Path) -> Region {
        let recorded =
            rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .ok()
                .and_then(|conn| crate::data::identity::read(&conn).region)
                .and_then(|text| Region::parse(&text).ok());
        match recorded {
            Some(region) => Region {
                name: "the dataset's region",
                ..region
            },
            None => SOUTH_AFRICA,
        }
    }

    pub fn contains(&self, lat: f64, lng: f64) -> bool {
        (self.min_lat..=self.max_lat).contains(&lat) && (self.min_lng..=self.max_lng).contains(&lng)
    }

    /// The region as a message names it, with its edges.
    pub fn describe(&self) -> String {
        format!(
            "{} (lng {} to {}, lat {} to {})",
            self.name, self.min_lng, self.max_lng, self.min_lat, self.max_lat
        )
    }

    /// The problem of a point outside the region, naming the slip it looks
    /// like when undoing one puts it inside; None when it lies inside.
    pub fn problem(&self, lat: f64, lng: f64) -> Option<String> {
        if self.contains(lat, lng) {
            return None;
        }
        let hint = if self.contains(lng, lat) {
            "lat and lng look swapped".to_string()
        } else if self.contains(-lat, lng) {
            sign_slip("lat", lat)
        } else if self.contains(lat, -lng) {
            sign_slip("lng", lng)
        } else {
            "if the dataset covers more, give its box with --region MIN_LNG,MIN_LAT,MAX_LNG,MAX_LAT"
                .to_string()
        };
        Some(format!(
            "lat {lat} and lng {lng} lie outside {}; {hint}",
            self.describe()
        ))
    }
}

/// The hint for a coordinate whose other sign lies inside: a minus lost, or
/// one too many.
fn sign_slip(name: &str, value: f64) -> String {
    let slip = if value > 0.0 {
        "lost its minus sign"
    } else {
        "has a minus sign it should not"
    };
    format!("{name} looks like it {slip} ({} lies inside)", -value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_usual_slips_are_named() {
        let r = SOUTH_AFRICA;
        assert_eq!(r.problem(-26.2, 28.04), None, "Johannesburg");
        let swapped = r.problem(27.93, -26.23).unwrap();
        assert!(swapped.contains("lat and lng look swapped"), "{swapped}");
        let sign = r.problem(26.09, 28.0).unwrap();
        assert!(
            sign.contains("lat looks like it lost its minus sign (-26.09 lies inside)"),
            "{sign}"
        );
        let added = r.problem(-29.85, -31.0292).unwrap();
        assert!(
            added
                .contains("lng looks like it has a minus sign it should not (31.0292 lies inside)"),
            "{added}"
        );
        let atlantic = r.problem(-30.0, 5.0).unwrap();
        assert!(!atlantic.contains("look"), "{atlantic}");
        assert!(atlantic.starts_with("lat -30 and lng 5 lie outside South Africa's box (lng 16 to 33.1, lat -35.1 to -21.8)"), "{atlantic}");
    }

    #[test]
    fn every_seed_place_lies_in_south_africa() {
        for p in crate::data::seed::seed_places().unwrap() {
            assert_eq!(SOUTH_AFRICA.problem(p.lat, p.lng), None, "{}", p.id);
        }
    }

    #[test]
    fn a_region_is_four_decimals_in_range_each_minimum_below_its_maximum() {
        let r = Region::parse("-10,-40.5,40,-20").unwrap();
        assert_eq!(
            (r.min_lng, r.min_lat, r.max_lng, r.max_lat),
            (-10.0, -40.5, 40.0, -20.0)
        );
        assert!(r.contains(-30.0, 5.0));
        for bad in [
            "",
            "1,2,3",
            "1,2,3,4,5",
            "a,1,2,3",
            "1e1,1,20,3",
            "-181,0,10,10",
            "0,-91,10,10",
            "10,0,0,10",
            "0,10,10,10",
        ] {
            assert!(Region::parse(bad).is_err(), "{bad}");
        }
    }
}
