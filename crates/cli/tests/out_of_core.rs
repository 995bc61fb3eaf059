//! Builds through a work directory, end to end: the same table bytes as in memory, and a full disk that stops a
//! build with a one-line error and no table left under its final name.

use std::path::Path;
use std::process::{Command, Output};

fn retro(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .output()
        .expect("retro runs")
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}

#[test]
fn a_chess_table_built_out_of_core_has_the_bytes_of_one_built_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (memory, sliced, work) = (
        dir.path().join("memory"),
        dir.path().join("sliced"),
        dir.path().join("work"),
    );
    let ok = |out: Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        )
    };
    ok(retro(&[
        "generate",
        "chess",
        "KRvK",
        "--out",
        memory.to_str().unwrap(),
        "--quiet",
    ]));
    ok(retro(&[
        "generate",
        "chess",
        "KRvK",
        "--out",
        sliced.to_str().unwrap(),
        "--test-engine-memory",
        "16384",
        "--work",
        work.to_str().unwrap(),
        "--quiet",
    ]));
    for file in ["KRvK.rwdl", "KRvK.rdst"] {
        let a = std::fs::read(memory.join("chess").join(file)).unwrap();
        let b = std::fs::read(sliced.join("chess").join(file)).unwrap();
        assert!(a == b, "{file} differs");
    }
    assert!(
        files(&work).is_empty(),
        "scratch files left: {:?}",
        files(&work)
    );
}

#[test]
fn a_full_work_directory_stops_the_build_with_a_clear_error_and_no_table() {
    let dir = tempfile::tempdir().unwrap();
    let (out_dir, work) = (dir.path().join("tables"), dir.path().join("work"));
    // KRvK exits only into KvK, so it is the only table built; the disk "fills" after 20,000 bytes of scratch files.
    let out = retro(&[
        "generate",
        "chess",
        "KRvK",
        "--out",
        out_dir.to_str().unwrap(),
        "--test-engine-memory",
        "16384",
        "--work",
        work.to_str().unwrap(),
        "--quiet",
        "--test-disk-full-after",
        "20000",
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains("is full"), "{stderr}");
    assert!(stderr.contains(work.to_str().unwrap()), "{stderr}");
    // Nothing under a table's name, finished or not.
    let tables = files(&out_dir.join("chess"));
    assert!(
        tables.is_empty(),
        "files in the table directory: {tables:?}"
    );
}
