//! Runs a parsed command and turns its outcome into an exit code:
//! 0 done, 1 failed (message on stderr), 2 usage error.

pub mod config;
pub mod help;

use crate::access::keys;
use crate::data::db;
use crate::data::file_swap;
use crate::data::import;
use crate::data::load;
use crate::data::synthetic;
use crate::transport;
use config::Command;

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
        Command::Init {
            db,
            force,
            synthetic: None,
        } => {
            let count = load::init(&db, force)?;
            eprintln!(
                "created {} with {count} areas (real places, synthetic scores)",
                db.display()
            );
            Ok(())
        }
        Command::Init {
            db,
            force,
            synthetic: Some(s),
        } => {
            let count = synthetic::init(&db, force, s.areas, s.history_days)?;
            eprintln!(
                "created {} with {count} generated areas (synthetic names and scores)",
                db.display()
            );
            Ok(())
        }
        Command::Import { db, file } => {
            let summary = import::run(&db, &file)?;
            eprintln!("{summary}");
            Ok(())
        }
        Command::Serve(config) => {
            simple_logger::SimpleLogger::new()
                .with_level(log::LevelFilter::Info)
                // tiny_http logs every accept() woken by the socket timeout as an
                // error; the server logs what matters about connections itself.
                .with_module_level("tiny_http", log::LevelFilter::Off)
                .env()
                .init()
                .map_err(|e| e.to_string())?;
            transport::start(&config)?.run_until_signalled()
        }
        Command::KeysCreate { db, plan, label } => {
            let (id, key) = file_swap::change_keys(&db, |conn| keys::create(conn, plan, &label))?;
            println!("{key}");
            eprintln!(
                "created key {id} on the {} plan; it is shown only this once",
                plan.name()
            );
            Ok(())
        }
        Command::KeysList { db } => {
            let conn = db::open_writable(&db)?;
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
        Command::KeysRevoke { db, id } => {
            file_swap::change_keys(&db, |conn| keys::revoke(conn, &id))?;
            eprintln!("revoked {id}");
            Ok(())
        }
    }
}
