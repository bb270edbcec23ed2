//! Pages of List and Search as a client walks them: the RFC 8288 `Link`
//! header read into (rel, target) pairs, a walk by `offset` that checks every
//! page's body and headers on the way, and a walk by following rel="next".

use serde_json::Value;

use super::client::Reply;
use super::{TestApp, key_set};

/// The links of a `Link` header as (rel, target), in the order given. URI
/// references may hold commas (a bbox does), so the header is read link by
/// link: `<target>` then parameters up to the next `<`.
pub fn links(reply: &Reply) -> Vec<(String, String)> {
    let header = reply.header("Link").expect("a Link header");
    let mut out = Vec::new();
    let mut rest = header.trim();
    while !rest.is_empty() {
        rest = rest.trim_start_matches([',', ' ']);
        let open = rest
            .strip_prefix('<')
            .unwrap_or_else(|| panic!("a link starts with '<': {header}"));
        let close = open.find('>').expect("a link's '>'");
        let target = open[..close].to_string();
        let params_end = open[close + 1..]
            .find('<')
            .map_or(open.len(), |i| close + 1 + i);
        let params = &open[close + 1..params_end];
        let rel = params
            .split(';')
            .filter_map(|p| p.trim().strip_prefix("rel="))
            .map(|r| r.trim_matches([' ', ',']).trim_matches('"').to_string())
            .next()
            .unwrap_or_else(|| panic!("a rel for {target}: {header}"));
        out.push((rel, target));
        rest = &open[params_end..];
    }
    out
}

/// The target of the link with `rel`, if there is one.
pub fn link(reply: &Reply, rel: &str) -> Option<String> {
    links(reply)
        .into_iter()
        .find(|(r, _)| r == rel)
        .map(|(_, t)| t)
}

/// What a walk saw: every item in order and the `total` every page reported.
pub struct Walk {
    pub items: Vec<Value>,
    pub total: u64,
    pub pages: usize,
}

impl Walk {
    pub fn ids(&self) -> Vec<&str> {
        self.items
            .iter()
            .map(|a| a["id"].as_str().unwrap())
            .collect()
    }
}

/// The offset of the last page for `total` and `limit`.
pub fn last_offset(total: u64, limit: u64) -> u64 {
    total.saturating_sub(1) / limit * limit
}

/// GET `{base}&limit={limit}&offset={n}` for n = 0, limit, 2 limit, ... until
/// `total`. Each page must be a 200 JSON page of `{data,total,limit,offset}`
/// echoing limit and offset, hold min(limit, total - offset) items, report
/// the same total as X-Total-Count, and carry first, last, prev (past the
/// first page) and next (while more remain) links to this same target with
/// only the offset changed.
pub fn walk_by_offset(app: &TestApp, base: &str, limit: u64) -> Walk {
    let target = |offset: u64| format!("{base}&limit={limit}&offset={offset}");
    let mut walk = Walk {
        items: Vec::new(),
        total: u64::MAX,
        pages: 0,
    };
    let mut offset = 0;
    while offset == 0 || offset < walk.total {
        let here = target(offset);
        let reply = app.get(&here);
        assert_eq!(reply.status, 200, "{here}: {}", reply.text());
        let page = reply.json();
        let keys = key_set(&page);
        assert_eq!(keys.len(), 4, "{here}: {page}");
        let total = page["total"].as_u64().expect("total");
        assert!(
            walk.pages == 0 || total == walk.total,
            "{here}: total moved"
        );
        walk.total = total;
        assert_eq!(
            (page["limit"].as_u64(), page["offset"].as_u64()),
            (Some(limit), Some(offset)),
            "{here}"
        );
        assert_eq!(
            reply.header("X-Total-Count"),
            Some(total.to_string().as_str()),
            "{here}"
        );
        let data = page["data"].as_array().expect("data");
        assert_eq!(
            data.len() as u64,
            limit.min(total.saturating_sub(offset)),
            "{here}: page size"
        );
        let mut want = vec![("first".to_string(), target(0))];
        if offset > 0 {
            want.push(("prev".into(), target(offset - limit)));
        }
        if offset + limit < total {
            want.push(("next".into(), target(offset + limit)));
        }
        want.push(("last".into(), target(last_offset(total, limit))));
        let mut got = links(&reply);
        got.sort();
        want.sort();
        assert_eq!(got, want, "{here}: Link");
        walk.items.extend(data.iter().cloned());
        walk.pages += 1;
        offset += limit;
    }
    walk
}

/// Starts at `first` and follows rel="next" until a page has none; at most
/// `max_pages` pages. Each page must answer 200.
pub fn walk_by_links(app: &TestApp, first: &str, max_pages: usize) -> Walk {
    let mut walk = Walk {
        items: Vec::new(),
        total: 0,
        pages: 0,
    };
    let mut next = Some(first.to_string());
    while let Some(target) = next {
        assert!(
            walk.pages < max_pages,
            "{first}: more than {max_pages} pages"
        );
        let reply = app.get(&target);
        assert_eq!(reply.status, 200, "{target}: {}", reply.text());
        let page = reply.json();
        walk.total = page["total"].as_u64().expect("total");
        walk.items
            .extend(page["data"].as_array().expect("data").iter().cloned());
        walk.pages += 1;
        next = link(&reply, "next");
    }
    walk
}
