//! Runs a parsed command and turns its outcome into an exit code:
//! 0 done, 1 failed (a `CliError`'s message on stderr), 2 usage error.

mod backup;
pub mod config;
mod error;
mod flags;
pub mod help;
mod info;
mod keys_cmd;
mod keys_redis;
mod restore;
mod restore_undo;
mod usage_print;

use crate::access::migrate;
use crate::data::import;
use crate::data::load;
use crate::data::previous;
use crate::data::synthetic;
use crate::server;
use crate::server::ServeConfig;
use config::{Command, Synthetic};
pub use error::CliError;
use std::path::Path;

pub fn main(args: &[String]) -> i32 {
    let command = match config::parse(args, &|k| std::env::var(k).ok()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("area-scoring: {}\n\n{}", e.message, e.usage);
            return 2;
        }
    };
    match run(command) {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("area-scoring: {message}");
            1
        }
    }
}

fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Help(text) => {
            println!("{text}");
            Ok(())
        }
        Command::Version => {
            println!("area-scoring {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        // With Redis, keys are there: no keys file is made.
        Command::Init {
            db,
            keys,
            redis,
            force,
            synthetic,
        } => {
            // Before the file is replaced: its keys must not go with it.
            if redis.is_none() {
                move_keys(&db, &keys)?;
            }
            // The keys file is made by the first command that needs it
            // (`keys create`, `serve`), not with the dataset.
            init(&db, force, synthetic)
        }
        Command::Import {
            db,
            keys,
            redis,
            file,
            options,
            check,
        } => {
            if check {
                // Writes nothing, not even the keys' move.
                eprintln!("{}", import::check(&db, &file, &options)?);
                return Ok(());
            }
            if redis.is_none() {
                move_keys(&db, &keys)?;
            }
            eprintln!("{}", import::run(&db, &file, &options)?);
            Ok(())
        }
        Command::Rollback { db } => {
            eprintln!("{}", previous::rollback(&db)?);
            Ok(())
        }
        Command::Upgrade { file } => {
            eprintln!("{}", crate::data::upgrade::run(&file)?);
            Ok(())
        }
        Command::Info { file, format } => {
            println!("{}", info::run(&file, format)?);
            Ok(())
        }
        Command::OpenApi => {
            use std::io::Write;
            let text = crate::app::openapi::text();
            std::io::stdout()
                .write_all(text.as_bytes())
                .map_err(|source| CliError::Write {
                    what: "the document",
                    source,
                })
        }
        // The server moves them itself, logging it (server::start).
        Command::Serve(config) => serve(&config),
        // With Redis, no dataset nor keys file is needed, nor touched.
        Command::Keys {
            files,
            keys_file,
            action,
        } => keys_cmd::keys(&files, keys_file, action),
        Command::Plans {
            files,
            keys_file,
            action,
        } => keys_cmd::plans(&files, keys_file, action),
        Command::Backup { files, dir } => match &files.redis {
            None => {
                move_keys(&files.db, &files.keys)?;
                backup::run(&files, &dir)
            }
            Some(url) => {
                keys_redis::backup(url, &files, &dir)?;
                backup::dataset(&files.db, &dir)
            }
        },
        Command::Restore { files, dir, yes } => restore::run(&files, &dir, yes),
    }
}

/// Moves the keys of a dataset file made before keys had a file of their
/// own into the keys file (access/migrate.rs), saying so.
fn move_keys(db: &Path, keys: &Path) -> Result<(), CliError> {
    if let Some(moved) = migrate::out_of_dataset(db, keys)? {
        eprintln!("area-scoring: {}", moved.said);
        if let Some(warning) = moved.left_in_dataset {
            eprintln!("area-scoring: warning: {warning}");
        }
    }
    Ok(())
}

fn init(db: &Path, force: bool, synthetic: Option<Synthetic>) -> Result<(), CliError> {
    let (count, what) = match synthetic {
        None => (
            load::init(db, force)?,
            "areas (real places, synthetic scores)",
        ),
        Some(s) => (
            synthetic::init(db, force, s.areas, s.history_days)?,
            "generated areas (synthetic names and scores)",
        ),
    };
    eprintln!("created {} with {count} {what}", db.display());
    Ok(())
}

fn serve(config: &ServeConfig) -> Result<(), CliError> {
    simple_logger::SimpleLogger::new()
        .with_level(log::LevelFilter::Info)
        .env()
        .init()?;
    Ok(server::serve(config)?)
}
