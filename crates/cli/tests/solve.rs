//! `retro solve` end to end: exact output shapes, errors, and determinism across thread counts.

use std::path::Path;
use std::process::{Command, Output};

fn retro(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .output()
        .expect("retro runs")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "retro failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn the_seed_figure_prints_exactly_the_documented_json() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "figure.txt",
        "# the three-position figure\ntop : second end | second\nsecond : top | top\nend : |\n",
    );
    let out = stdout(&retro(&["solve", &file, "--json"]));
    assert_eq!(
        out.trim_end(),
        concat!(
            r#"{"positions":[{"name":"top","left":{"outcome":"win","plies":1},"right":{"outcome":"draw","plies":null}},"#,
            r#"{"name":"second","left":{"outcome":"draw","plies":null},"right":{"outcome":"loss","plies":2}},"#,
            r#"{"name":"end","left":{"outcome":"loss","plies":0},"right":{"outcome":"loss","plies":0}}]}"#
        )
    );
    let summary = stdout(&retro(&["solve", &file, "--summary", "--json"]));
    assert_eq!(
        summary.trim_end(),
        r#"{"positions":6,"moves":5,"win":1,"loss":3,"draw":2,"max_plies":2,"sum_plies":3}"#
    );
}

#[test]
fn impartial_files_print_one_value_per_position_in_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "g.txt", "a : b\nb : c\nc : a d\nd : e\ne :\n");
    let out = stdout(&retro(&["solve", &file, "--json"]));
    assert_eq!(
        out.trim_end(),
        concat!(
            r#"{"positions":[{"name":"a","outcome":"draw","plies":null},{"name":"b","outcome":"draw","plies":null},"#,
            r#"{"name":"c","outcome":"draw","plies":null},{"name":"d","outcome":"win","plies":1},"#,
            r#"{"name":"e","outcome":"loss","plies":0}]}"#
        )
    );
    let misere = stdout(&retro(&["solve", &file, "--json", "--misere"]));
    assert!(
        misere.contains(r#"{"name":"e","outcome":"win","plies":0}"#),
        "{misere}"
    );
    assert!(
        misere.contains(r#"{"name":"d","outcome":"loss","plies":1}"#),
        "{misere}"
    );
    let table = stdout(&retro(&["solve", &file]));
    assert!(
        table
            .lines()
            .any(|l| l.starts_with('d') && l.contains("win") && l.trim_end().ends_with('1'))
    );
}

#[test]
fn edge_lists_name_positions_by_number_and_count_repeated_moves() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "e.edges", "# comment\n0 1\n1 2\n1 2\n");
    let out = stdout(&retro(&["solve", &file, "--edges", "--json"]));
    assert_eq!(
        out.trim_end(),
        r#"{"positions":[{"name":"0","outcome":"loss","plies":2},{"name":"1","outcome":"win","plies":1},{"name":"2","outcome":"loss","plies":0}]}"#
    );
    let summary = stdout(&retro(&["solve", &file, "--edges", "--summary", "--json"]));
    assert!(summary.contains(r#""positions":3,"moves":3,"#), "{summary}");
}

#[test]
fn bad_files_give_one_line_errors_and_a_failing_exit() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("unknown.txt", "a : b\nb : zz\n", "", "line 2"),
        ("duplicate.txt", "a : b\nb :\na :\n", "", "line 3"),
        ("syntax.txt", "a b c\n", "", "line 1"),
        ("range.edges", "0 1\n1 99999999999\n", "--edges", "line 2"),
        ("letters.edges", "0 x\n", "--edges", "line 1"),
        // A number whose graph would not fit in memory (98 GiB here): a clear error, not an aborted allocation.
        ("huge.edges", "0 1\n1 4294967295\n", "--edges", "4294967295"),
    ];
    for (name, text, flag, needle) in cases {
        let file = write(dir.path(), name, text);
        let mut args = vec!["solve", file.as_str()];
        if !flag.is_empty() {
            args.push(flag);
        }
        let output = retro(&args);
        assert!(!output.status.success(), "{name} was accepted");
        let err = String::from_utf8(output.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
        assert!(err.contains(needle), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let missing = retro(&["solve", "/nonexistent/graph.txt"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/graph.txt"));
}

#[test]
fn one_and_two_threads_print_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.edges");
    retro_graph::random::write_edges(20_000, 3.0, 0.9, 11, std::fs::File::create(&path).unwrap())
        .unwrap();
    let file = path.to_str().unwrap();
    let one = stdout(&retro(&[
        "solve",
        file,
        "--edges",
        "--json",
        "--threads",
        "1",
    ]));
    let two = stdout(&retro(&[
        "solve",
        file,
        "--edges",
        "--json",
        "--threads",
        "2",
    ]));
    assert_eq!(one, two);
    assert!(one.contains("draw") && one.contains("win") && one.contains("loss"));
}

#[test]
fn a_tiny_memory_budget_builds_through_the_work_directory_with_the_same_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.edges");
    retro_graph::random::write_edges(50_000, 3.0, 0.95, 5, std::fs::File::create(&path).unwrap())
        .unwrap();
    let file = path.to_str().unwrap();
    let work = dir.path().join("work");
    let in_memory = stdout(&retro(&["solve", file, "--edges", "--json"]));
    let sliced = stdout(&retro(&[
        "solve",
        file,
        "--edges",
        "--json",
        "--memory",
        "64K",
        "--work",
        work.to_str().unwrap(),
    ]));
    assert_eq!(in_memory, sliced);
    assert_eq!(
        std::fs::read_dir(&work).unwrap().count(),
        0,
        "the work directory is left empty"
    );
    let bad = retro(&["solve", file, "--edges", "--memory", "lots"]);
    assert!(!bad.status.success());
}

/// A reader that goes away (`retro games | head -1`) ends retro quietly, as it ends other Unix tools: no panic
/// message about a broken pipe.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_retro_quietly() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .arg("games")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("retro runs");
    // Close the reading end before retro has written anything.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.is_empty(), "{stderr}");
}
