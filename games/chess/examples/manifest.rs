//! Writes the manifest of a directory of tables (`DIR/chess/*`) to `DIR/MANIFEST`: one line per file,
//! `NAME BYTES CHECKSUM` (the checksum of FORMAT.md, in hex), sorted by name. `tests/shipped.rs` checks the shipped
//! tables against it.
//!
//! Usage: cargo run -p retro-chess --example manifest -- tablebases/chess

use std::fmt::Write;

fn main() -> std::io::Result<()> {
    let dir = std::env::args().nth(1).expect("usage: manifest DIR");
    let tables = std::path::Path::new(&dir).join("chess");
    let mut names: Vec<String> = std::fs::read_dir(&tables)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    names.retain(|n| n.ends_with(".rwdl") || n.ends_with(".rdst"));
    names.sort();
    let mut manifest = String::new();
    for name in names {
        let bytes = std::fs::read(tables.join(&name))?;
        let sum = retro_probe::checksum::checksum(&bytes);
        writeln!(manifest, "{name} {} {sum:016x}", bytes.len()).expect("writing to a string");
    }
    std::fs::write(std::path::Path::new(&dir).join("MANIFEST"), manifest)
}
