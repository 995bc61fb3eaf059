//! A real crash: a child process solving out of core is killed with SIGKILL at random moments, again and again, and
//! started again on the same work directory until one run finishes; its values must be those of an uninterrupted
//! in-memory solve. The child is this very test binary, running the ignored test `child_build`.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{ListGame, Rng, random_graph};
use retro_engine::{Solution, SolveOptions, Testing, solve};

const CHILD: &str = "RETRO_ENGINE_KILL_TEST_DIR";

fn game() -> ListGame {
    random_graph(200_000, 91)
}

/// FNV-1a over every value: what the parent compares.
fn values_checksum(s: &Solution) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for i in 0..s.size() {
        let code = match s.value(i) {
            None => 0,
            Some(v) => 1 + v.outcome() as u64 + 4 * u64::from(v.plies().unwrap_or(0)),
        };
        hash = (hash ^ code).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[test]
#[ignore = "the child of builds_killed_with_sigkill_resume_to_the_same_values, which runs it"]
fn child_build() {
    let root = std::env::var(CHILD)
        .expect("run only by builds_killed_with_sigkill_resume_to_the_same_values");
    let root = Path::new(&root);
    let options = SolveOptions {
        work_dir: Some(root.join("work")),
        memory: Some(1 << 16),
        testing: Testing {
            // A killed process loses nothing of what it wrote; syncing is for power cuts. Without it every
            // generation is a checkpoint, so that the kills land between many of them.
            skip_sync: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let solution = solve(&game(), &options).unwrap();
    let done = root.join("done.tmp");
    std::fs::write(&done, format!("{}", values_checksum(&solution))).unwrap();
    std::fs::rename(done, root.join("done")).unwrap();
}

#[test]
fn builds_killed_with_sigkill_resume_to_the_same_values() {
    let expected = values_checksum(&solve(&game(), &SolveOptions::default()).unwrap());
    let root = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut rng = Rng(92);
    let mut kills = 0;
    for attempt in 0u64.. {
        assert!(attempt < 200, "the build never finished");
        let mut child = Command::new(&exe)
            .args(["--ignored", "--exact", "child_build", "--test-threads=1"])
            .env(CHILD, root.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Later attempts wait longer, so that one finishes.
        std::thread::sleep(Duration::from_millis(5 + rng.below(60 + 20 * attempt)));
        match child.try_wait().unwrap() {
            Some(status) => {
                assert!(status.success(), "the child failed after {kills} kills");
                break;
            }
            None => {
                child.kill().unwrap();
                child.wait().unwrap();
                kills += 1;
            }
        }
    }
    let child = std::fs::read_to_string(root.path().join("done")).unwrap();
    assert_eq!(
        child.parse::<u64>().unwrap(),
        expected,
        "after {kills} kills"
    );
    assert!(
        kills >= 3,
        "only {kills} kills: the child was too quick to be killed"
    );
    let leftovers = std::fs::read_dir(root.path().join("work")).unwrap().count();
    assert_eq!(leftovers, 0);
}
