//! The flags of one subcommand as typed on the command line, before their
//! values are read: `--name value`, `--name=value`, switches, `--help`, and
//! plain arguments. What the values mean is config.rs's business.

/// The valued flags that may be given more than once, each value kept.
const REPEATABLE: [&str; 1] = ["--ignore-column"];

/// Flags of one subcommand: `--name value`, `--name=value`, switches, `--help`,
/// and up to `max_positional` plain arguments.
pub struct Flags {
    values: Vec<(String, String)>,
    switches: Vec<String>,
    pub positional: Vec<String>,
    pub help: bool,
}

impl Flags {
    pub fn parse(
        args: &[String],
        valued: &[&str],
        switches: &[&str],
        max_positional: usize,
    ) -> Result<Flags, String> {
        let mut flags = Flags {
            values: Vec::new(),
            switches: Vec::new(),
            positional: Vec::new(),
            help: false,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
                _ => (arg.as_str(), None),
            };
            if name == "--help" || name == "-h" {
                flags.help = true;
            } else if valued.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .filter(|v| !v.starts_with("--"))
                        .cloned()
                        .ok_or(format!("{name} needs a value"))?,
                };
                if !REPEATABLE.contains(&name) && flags.values.iter().any(|(n, _)| n == name) {
                    return Err(format!("{name} given twice"));
                }
                flags.values.push((name.to_string(), value));
            } else if switches.contains(&name) && inline.is_none() {
                flags.switches.push(name.to_string());
            } else if name.starts_with('-') {
                // The name only: a value given with it may be a secret.
                return Err(format!("unknown option '{name}'"));
            } else if flags.positional.len() < max_positional {
                flags.positional.push(arg.clone());
            } else {
                return Err(format!("unexpected argument '{arg}'"));
            }
        }
        Ok(flags)
    }

    /// Every value of a flag that may be given more than once (`REPEATABLE`), in order.
    pub fn values(&self, name: &str) -> Vec<String> {
        let given = self.values.iter().filter(|(n, _)| n == name);
        given.map(|(_, v)| v.clone()).collect()
    }

    pub fn value(&self, name: &str) -> Option<String> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    pub fn switch(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }
}
