//! With Redis named, the app's keys, keys' buckets and usage go through it
//! (access/redis), and /metrics says whether it is reachable.

use std::sync::Arc;

use super::App;
use crate::access::redis::live::Live;

/// Shares the app's state through `live`, and starts the watch that
/// installs the keys whenever they change in Redis.
pub fn link(app: &Arc<App>, mut live: Live) -> std::io::Result<()> {
    for (level, said) in std::mem::take(&mut live.said) {
        log::log!(level, "{said}");
    }
    let live = Arc::new(live);
    app.limiter.share(live.buckets.clone());
    app.usage.share(live.usage.clone(), live.requests.clone());
    let shown = live.clone();
    app.metrics.add(move || shown.metrics());
    let (asked, weak) = (live.clone(), Arc::downgrade(app));
    app.keys.refresh_with(move || {
        asked.install_newer(|table| weak.upgrade().map(|app| app.keys.replace(table)).is_some());
    });
    let weak = Arc::downgrade(app);
    std::thread::Builder::new()
        .name("redis-watch".into())
        .spawn(move || {
            live.watch(|table| weak.upgrade().map(|app| app.keys.replace(table)).is_some())
        })
        .map(drop)
}
