//! Prints, one `FIRST LAST` line each (hex), the ranges of code points for which
//! Rust's `char::is_alphanumeric` holds: what the server takes as "a letter or
//! digit" in Search's `q`. contract/build_openapi.py turns them into the
//! pattern of `q`, and contract/run.sh rebuilds this with the machine's rustc
//! to check that contract/unicode-alnum-ranges.txt still matches the toolchain.
//!
//!     rustc -O -o /tmp/unicode_alnum contract/unicode_alnum.rs
//!     /tmp/unicode_alnum > contract/unicode-alnum-ranges.txt
fn main() {
    let mut open: Option<u32> = None;
    let mut last = 0u32;
    for cp in 0u32..=0x10FFFF {
        let alnum = char::from_u32(cp).is_some_and(char::is_alphanumeric);
        match (alnum, open) {
            (true, None) => open = Some(cp),
            (false, Some(first)) => {
                println!("{first:X} {last:X}");
                open = None;
            }
            _ => {}
        }
        if alnum {
            last = cp;
        }
    }
    if let Some(first) = open {
        println!("{first:X} {last:X}");
    }
}
