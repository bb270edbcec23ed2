//! `area-scoring`: see `area-scoring --help`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(area_scoring::cli::main(&args));
}
