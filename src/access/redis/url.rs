//! The Redis URL an operator names (`AREA_REDIS`, `AREA_REDIS_FILE` or
//! `--redis`):
//! `redis://[user:password@]host:port[/db]`, read into its parts so that the
//! password is never part of a string that could be printed. Its Debug and
//! Display forms show `***` in the password's place.

use std::fmt;
use std::path::Path;

use super::url_file::{self, REDIS_FILE_VARIABLE, REDIS_VARIABLE};

/// The flag that names Redis, without a password.
pub const REDIS_FLAG: &str = "--redis";
const SCHEME: &str = "redis://";
const DEFAULT_PORT: u16 = 6379;
/// Databases a Redis server has by default: 0 to 15.
const DATABASES: std::ops::RangeInclusive<i64> = 0..=15;

/// A password, which no format shows.
#[derive(Clone, PartialEq)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[derive(Clone, PartialEq)]
pub struct RedisUrl {
    pub host: String,
    pub port: u16,
    pub db: i64,
    pub user: Option<String>,
    pub password: Option<Secret>,
}

impl RedisUrl {
    /// Reads a URL. Errors never hold the text given, which may hold a password.
    pub fn parse(text: &str) -> Result<RedisUrl, String> {
        let bad = |why: &str| {
            format!("the Redis URL is not redis://[user:password@]host:port[/db]: {why}")
        };
        let rest = text
            .strip_prefix(SCHEME)
            .ok_or_else(|| bad("it must start with redis:// (TLS is not supported)"))?;
        let (auth, rest) = match rest.rsplit_once('@') {
            Some((auth, rest)) => (Some(auth), rest),
            None => (None, rest),
        };
        let (address, db) = match rest.split_once('/') {
            Some((address, "")) => (address, 0),
            Some((address, db)) => match db.parse::<i64>() {
                Ok(n) if DATABASES.contains(&n) => (address, n),
                _ => return Err(bad("the database must be a number from 0 to 15")),
            },
            None => (rest, 0),
        };
        let (host, port) = match address.rsplit_once(':') {
            Some((host, port)) => (
                host,
                port.parse::<u16>()
                    .ok()
                    .filter(|p| *p > 0)
                    .ok_or_else(|| bad("the port must be a number from 1 to 65535"))?,
            ),
            None => (address, DEFAULT_PORT),
        };
        if host.is_empty() || host.contains(['?', '#', ' ']) {
            return Err(bad("it names no host"));
        }
        let (user, password) = match auth {
            None => (None, None),
            Some(auth) => match auth.split_once(':') {
                Some((user, password)) => (
                    Some(user.to_string()).filter(|u| !u.is_empty()),
                    Some(Secret(password.to_string())).filter(|p| !p.0.is_empty()),
                ),
                None => (Some(auth.to_string()).filter(|u| !u.is_empty()), None),
            },
        };
        Ok(RedisUrl {
            host: host.to_string(),
            port,
            db,
            user,
            password,
        })
    }

    /// What the redis crate connects with, built from the parts (never from text).
    pub fn connection_info(&self) -> redis::ConnectionInfo {
        use redis::IntoConnectionInfo;
        let mut settings = redis::RedisConnectionInfo::default().set_db(self.db);
        if let Some(user) = &self.user {
            settings = settings.set_username(user);
        }
        if let Some(password) = &self.password {
            settings = settings.set_password(password.expose());
        }
        redis::ConnectionAddr::Tcp(self.host.clone(), self.port)
            .into_connection_info()
            .expect("a TCP address always converts")
            .set_redis_settings(settings)
    }
}

impl fmt::Display for RedisUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(SCHEME)?;
        match (&self.user, &self.password) {
            (Some(user), Some(_)) => write!(f, "{user}:***@")?,
            (None, Some(_)) => f.write_str(":***@")?,
            (Some(user), None) => write!(f, "{user}@")?,
            (None, None) => {}
        }
        write!(f, "{}:{}/{}", self.host, self.port, self.db)
    }
}

impl fmt::Debug for RedisUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RedisUrl({self})")
    }
}

/// Which Redis a command uses: `--redis URL` (refused when it holds a
/// password, which argv would show to every user of the host), else
/// `AREA_REDIS` or the file named by `AREA_REDIS_FILE` (not both); None
/// keeps the embedded set-up.
pub fn choose(
    flag: Option<String>,
    variable: Option<String>,
    file: Option<String>,
) -> Result<Option<RedisUrl>, String> {
    if let Some(text) = flag {
        let url = RedisUrl::parse(&text).map_err(|e| format!("{REDIS_FLAG}: {e}"))?;
        if url.password.is_some() {
            return Err(format!(
                "{REDIS_FLAG} may not hold a password, which other users of the host can read \
                 from the command line: put the URL in a file of mode 0640 or 0600 named by \
                 {REDIS_FILE_VARIABLE} (or in {REDIS_VARIABLE})"
            ));
        }
        return Ok(Some(url));
    }
    match (
        variable.filter(|v| !v.is_empty()),
        file.filter(|v| !v.is_empty()),
    ) {
        (None, None) => Ok(None),
        (Some(_), Some(_)) => Err(format!(
            "both {REDIS_VARIABLE} and {REDIS_FILE_VARIABLE} are set: name Redis once"
        )),
        (Some(text), None) => RedisUrl::parse(&text)
            .map(Some)
            .map_err(|e| format!("{REDIS_VARIABLE}: {e}")),
        (None, Some(path)) => {
            let text = url_file::read(Path::new(&path))
                .map_err(|e| format!("{REDIS_FILE_VARIABLE}: {e}"))?;
            RedisUrl::parse(&text)
                .map(Some)
                .map_err(|e| format!("{REDIS_FILE_VARIABLE}: {path}: {e}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_part_of_a_url() {
        let url = RedisUrl::parse("redis://app:s3cret@10.0.0.5:6380/2").unwrap();
        assert_eq!((url.host.as_str(), url.port, url.db), ("10.0.0.5", 6380, 2));
        assert_eq!(url.user.as_deref(), Some("app"));
        assert_eq!(url.password.as_ref().map(Secret::expose), Some("s3cret"));
        let plain = RedisUrl::parse("redis://localhost").unwrap();
        assert_eq!((plain.port, plain.db, plain.password), (6379, 0, None));
        let only_password = RedisUrl::parse("redis://:pw@h:1/").unwrap();
        assert_eq!((only_password.user, only_password.port), (None, 1));
        assert!(only_password.password.is_some());
    }

    #[test]
    fn no_form_of_the_url_shows_its_password() {
        let url = RedisUrl::parse("redis://app:s3cret@10.0.0.5:6380/2").unwrap();
        for shown in [
            format!("{url}"),
            format!("{url:?}"),
            format!("{:?}", Some(&url)),
        ] {
            assert!(!shown.contains("s3cret"), "{shown}");
            assert!(
                shown.contains("***") && shown.contains("10.0.0.5:6380"),
                "{shown}"
            );
        }
        let info = format!("{:?}", url.connection_info());
        assert!(!info.contains("s3cret"), "{info}");
    }

    #[test]
    fn refusals_never_echo_the_url() {
        for bad in [
            "rediss://u:s3cret@h:1",
            "redis://u:s3cret@h:notaport",
            "redis://u:s3cret@h:1/99",
            "redis://u:s3cret@:1",
            "http://u:s3cret@h",
        ] {
            let why = RedisUrl::parse(bad).unwrap_err();
            assert!(!why.contains("s3cret"), "{why}");
        }
    }

    #[test]
    fn a_password_comes_only_from_the_environment() {
        let refused = choose(Some("redis://u:s3cret@h:1".into()), None, None).unwrap_err();
        assert!(
            refused.contains(REDIS_VARIABLE) && !refused.contains("s3cret"),
            "{refused}"
        );
        let from_env = choose(None, Some("redis://u:s3cret@h:1".into()), None)
            .unwrap()
            .unwrap();
        assert_eq!(from_env.password.unwrap().expose(), "s3cret");
        let flag = choose(Some("redis://h:2".into()), Some("redis://e:1".into()), None).unwrap();
        assert_eq!(flag.unwrap().host, "h", "the flag beats the variable");
        assert_eq!(choose(None, None, None), Ok(None));
        assert_eq!(
            choose(None, Some(String::new()), Some(String::new())),
            Ok(None)
        );
        let both = choose(None, Some("redis://e:1".into()), Some("/f".into())).unwrap_err();
        assert!(both.contains("both"), "{both}");
    }
}
