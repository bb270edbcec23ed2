//! Database files: opening them (`db`, in pools shaped by `pool_size`),
//! serving one and replacing it live (`dataset`, telling files apart by
//! `file_id`), building one (`load`, writing through `area_writer`, from
//! `seed` areas (their other names with `renames`'), `synthetic` ones, or an
//! operator's file through `import`; the rows derived at load include `stored`'s bodies, list forms and orderings and
//! `recent_history`'s packed year, `stats`' statistics and score counts, and `identity`: what the file was made
//! from), and swapping a new file in (`file_swap`),
//! keeping the one it replaced for `rollback` (`previous`). Every way these
//! fail is an `error::DataError`.

mod area_writer;
pub mod boundary;
pub mod dataset;
pub mod db;
pub mod error;
mod file_id;
pub mod file_swap;
pub mod identity;
pub mod import;
pub mod load;
pub mod pool_size;
pub mod previous;
pub mod recent_history;
pub mod renames;
pub mod seed;
pub mod stats;
pub mod stored;
pub mod synthetic;
pub mod upgrade;
