//! Runs a parsed command and turns its outcome into an exit code:
//! 0 done, 1 failed (message on stderr), 2 usage error.

pub mod config;
mod flags;
pub mod help;

use crate::access::keys;
use crate::data::db;
use crate::data::file_swap;
use crate::data::import;
use crate::data::load;
use crate::data::previous;
use crate::data::synthetic;
use crate::transport;
use config::{Command, Synthetic};
use std::path::Path;
use transport::ServeConfig;

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

fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Help(text) => {
            println!("{text}");
            Ok(())
        }
        Command::Version => {
            println!("area-scoring {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Command::Init {
            db,
            force,
            synthetic,
        } => init(&db, force, synthetic),
        Command::Import { db, file } => {
            let summary = import::run(&db, &file)?;
            eprintln!("{summary}");
            Ok(())
        }
        Command::Rollback { db } => {
            eprintln!("{}", previous::rollback(&db)?);
            Ok(())
        }
        Command::Serve(config) => serve(&config),
        Command::KeysCreate { db, plan, label } => {
            let (id, key) = file_swap::change_keys(&db, |conn| keys::create(conn, plan, &label))?;
            println!("{key}");
            eprintln!(
                "created key {id} on the {} plan; it is shown only this once",
                plan.name()
            );
            Ok(())
        }
        Command::KeysList { db } => keys_list(&db),
        Command::KeysRevoke { db, id } => {
            file_swap::change_keys(&db, |conn| keys::revoke(conn, &id))?;
            eprintln!("revoked {id}");
            Ok(())
        }
    }
}

fn init(db: &Path, force: bool, synthetic: Option<Synthetic>) -> Result<(), String> {
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

fn serve(config: &ServeConfig) -> Result<(), String> {
    simple_logger::SimpleLogger::new()
        .with_level(log::LevelFilter::Info)
        // tiny_http logs every accept() woken by the socket timeout as an
        // error; the server logs what matters about connections itself.
        .with_module_level("tiny_http", log::LevelFilter::Off)
        .env()
        .init()
        .map_err(|e| e.to_string())?;
    transport::start(config)?.run_until_signalled()
}

/// One line a key, tab-separated: id, plan, label, created, revoked.
fn keys_list(db: &Path) -> Result<(), String> {
    let conn = db::open_writable(db)?;
    for k in keys::list(&conn)? {
        println!(
            "{}\t{}\t{}\t{}\t{}",
            k.id,
            k.plan,
            if k.label.is_empty() { "-" } else { &k.label },
            k.created_at,
            k.revoked_at.as_deref().unwrap_or("-")
        );
    }
    Ok(())
}
