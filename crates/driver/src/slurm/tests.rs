//! The batch scripts and the submission of a small DAG (chess KQvKR: KQvK and KRvK first), against stand-ins for
//! `sbatch`, `squeue`, `sacct` and `scontrol` that record how they were called. The real cluster is
//! `scripts/slurm-local.sh`'s.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::*;

/// Writes an executable shell script.
fn tool(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/bash\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// An `sbatch` that logs its arguments (one call a line) and answers ids 101, 102, ... as `ID;cluster`.
fn fake_sbatch(dir: &Path) -> PathBuf {
    let log = dir.join("sbatch.log");
    tool(
        dir,
        "sbatch",
        &format!(
            "n=$(( $(cat {log}.n 2>/dev/null || echo 100) + 1 )); echo $n > {log}.n\necho \"$*\" >> {log}\necho \"$n;local\"",
            log = log.display()
        ),
    )
}

fn calls(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("sbatch.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn args(fakes: &Path, tables: &Path) -> SubmitArgs {
    SubmitArgs {
        variant: vec!["KQvKR".into()],
        memory: Some(1 << 30),
        cpus: 2,
        retro: Some("/opt/retro/bin/retro".into()),
        sbatch: fake_sbatch(fakes).display().to_string(),
        squeue: tool(fakes, "squeue", "exit 0").display().to_string(),
        ..SubmitArgs::new("chess", tables)
    }
}

#[test]
fn a_batch_script_asks_for_the_plan_and_builds_its_table_alone() {
    let fakes = tempfile::tempdir().unwrap();
    let tables = tempfile::tempdir().unwrap();
    submit(&args(fakes.path(), tables.path())).unwrap();
    let slurm = tables.path().join(SLURM_DIR);
    let script = std::fs::read_to_string(slurm.join("KQvKR.sbatch")).unwrap();
    let plan = make_plan(
        &retro_chess::family::Chess,
        &[retro_chess::Material::parse("KQvKR").unwrap()],
        1 << 30,
        2,
    )
    .unwrap();
    let table = plan.tables.iter().find(|t| t.name == "KQvKR").unwrap();
    let mib = job_memory_mib(&plan, table);
    assert!((MIN_JOB_MEMORY >> 20..=1024).contains(&mib), "{mib}");
    let dir = tables.path().display().to_string();
    for line in [
        "#!/bin/bash".to_string(),
        "#SBATCH --job-name=retro-chess-KQvKR".into(),
        format!("#SBATCH --output={dir}/slurm/logs/KQvKR-%j.out"),
        format!("#SBATCH --mem={mib}M"),
        "#SBATCH --cpus-per-task=2".into(),
        "#SBATCH --requeue".into(),
        "#SBATCH --open-mode=append".into(),
        format!(
            "/opt/retro/bin/retro generate chess KQvKR --out {dir} --table KQvKR --memory {mib}M --threads 2 \
             --work {dir}/.retro-work/KQvKR"
        ),
        "# It reads the tables KQvK KRvK: it runs after their jobs succeed (--dependency=afterok, given at \
         submission)."
            .into(),
        format!("if [ \"$status\" -gt 128 ] && [ \"${{SLURM_RESTART_COUNT:-0}}\" -lt {MAX_REQUEUES} ]; then"),
        "    scontrol requeue \"$SLURM_JOB_ID\" && sleep 600".into(),
        "exit \"$status\"".into(),
    ] {
        assert!(
            script.lines().any(|l| l == line),
            "missing {line:?} in\n{script}"
        );
    }
    assert!(!script.contains("--partition"), "{script}");
    let leaf = std::fs::read_to_string(slurm.join("KQvK.sbatch")).unwrap();
    assert!(leaf.contains("# It reads no other table."), "{leaf}");
    assert!(
        leaf.contains("--table KQvK --memory"),
        "the job builds its own table: {leaf}"
    );
}

#[test]
fn jobs_wait_for_the_jobs_of_their_sub_tables() {
    let fakes = tempfile::tempdir().unwrap();
    let tables = tempfile::tempdir().unwrap();
    let submitted = submit(&args(fakes.path(), tables.path())).unwrap();
    let names: Vec<(&str, &str)> = submitted
        .iter()
        .map(|s| (s.table.as_str(), s.job.as_str()))
        .collect();
    assert_eq!(
        names,
        [("KQvK", "101"), ("KRvK", "102"), ("KQvKR", "103")],
        "in build order, the cluster's name cut off the id"
    );
    let calls = calls(fakes.path());
    let slurm = tables.path().join(SLURM_DIR);
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(
        calls[0],
        format!("--parsable {}", slurm.join("KQvK.sbatch").display())
    );
    assert_eq!(
        calls[2],
        format!(
            "--parsable --dependency=afterok:101:102 --kill-on-invalid-dep=yes {}",
            slurm.join("KQvKR.sbatch").display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(slurm.join(JOBS_FILE)).unwrap(),
        "KQvK\t101\nKQvKR\t103\nKRvK\t102\n"
    );
}

#[test]
fn queued_jobs_and_present_tables_are_not_submitted_again() {
    let fakes = tempfile::tempdir().unwrap();
    let tables = tempfile::tempdir().unwrap();
    let mut a = args(fakes.path(), tables.path());
    submit(&a).unwrap();
    // KQvK is built; KRvK's job still runs, KQvKR's failed (squeue shows ended jobs for a while).
    let chess = tables.path().join("chess");
    std::fs::create_dir_all(&chess).unwrap();
    for ext in ["rwdl", "rdst"] {
        std::fs::write(chess.join(format!("KQvK.{ext}")), b"x").unwrap();
    }
    a.squeue = tool(
        fakes.path(),
        "squeue2",
        "echo '102|RUNNING|None'; echo '103|FAILED|NonZeroExitCode'",
    )
    .display()
    .to_string();
    let again = submit(&a).unwrap();
    assert_eq!(
        again,
        [
            Submitted {
                table: "KRvK".into(),
                job: "102".into(),
                new: false
            },
            Submitted {
                table: "KQvKR".into(),
                job: "104".into(),
                new: true
            },
        ]
    );
    let calls = calls(fakes.path());
    assert_eq!(calls.len(), 4, "{calls:?}");
    assert!(
        calls[3].starts_with("--parsable --dependency=afterok:102 "),
        "only the job still to finish: {}",
        calls[3]
    );
    let jobs = std::fs::read_to_string(tables.path().join(SLURM_DIR).join(JOBS_FILE)).unwrap();
    assert_eq!(jobs, "KQvK\t101\nKQvKR\t104\nKRvK\t102\n");
}

#[test]
fn a_dry_run_writes_scripts_that_submit_in_order() {
    let fakes = tempfile::tempdir().unwrap();
    let tables = tempfile::tempdir().unwrap();
    let a = SubmitArgs {
        dry_run: true,
        partition: Some("long".into()),
        ..args(fakes.path(), tables.path())
    };
    submit(&a).unwrap();
    assert!(calls(fakes.path()).is_empty(), "a dry run submits nothing");
    let slurm = tables.path().join(SLURM_DIR);
    assert!(!slurm.join(JOBS_FILE).exists());
    let script = std::fs::read_to_string(slurm.join("KRvK.sbatch")).unwrap();
    assert!(script.contains("\n#SBATCH --partition=long\n"), "{script}");
    // submit.sh, run with the stand-in sbatch first on the PATH, submits the three in order with their dependencies.
    let bin = fakes.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    fake_sbatch(&bin);
    let out = std::process::Command::new(slurm.join("submit.sh"))
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "KQvK 101\nKRvK 102\nKQvKR 103\n"
    );
    let calls = calls(&bin);
    assert_eq!(
        calls[2],
        format!(
            "--parsable --dependency=afterok:101:102 --kill-on-invalid-dep=yes {}",
            slurm.join("KQvKR.sbatch").display()
        )
    );
}

#[test]
fn a_job_killed_by_a_signal_requeues_itself_and_an_error_fails_it() {
    let fakes = tempfile::tempdir().unwrap();
    let tables = tempfile::tempdir().unwrap();
    // A retro that dies as the first argument says: by SIGKILL, or with an error.
    let retro = tool(
        fakes.path(),
        "retro",
        &format!(
            "echo \"$*\" > {}/retro.args\ncase $(cat {}/mode) in kill) kill -9 $$ ;; *) echo 'retro: a sub-table is missing' >&2; exit 1 ;; esac",
            fakes.path().display(),
            fakes.path().display()
        ),
    );
    let bin = fakes.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    // Slurm kills a requeued job at once; the stand-in says no so that the script goes on and exits.
    tool(
        &bin,
        "scontrol",
        &format!(
            "echo \"$*\" >> {}/scontrol.log; exit 1",
            fakes.path().display()
        ),
    );
    let a = SubmitArgs {
        retro: Some(retro),
        ..args(fakes.path(), tables.path())
    };
    submit(&a).unwrap();
    let script = tables.path().join(SLURM_DIR).join("KRvK.sbatch");
    let run = |mode: &str, restarts: u32| {
        std::fs::write(fakes.path().join("mode"), mode).unwrap();
        let _ = std::fs::remove_file(fakes.path().join("scontrol.log"));
        let status = std::process::Command::new("bash")
            .arg(&script)
            .env(
                "PATH",
                format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
            )
            .env("SLURM_JOB_ID", "777")
            .env("SLURM_RESTART_COUNT", restarts.to_string())
            .output()
            .unwrap()
            .status;
        let requeued = std::fs::read_to_string(fakes.path().join("scontrol.log")).ok();
        (status.code(), requeued)
    };
    assert_eq!(run("kill", 0), (Some(137), Some("requeue 777\n".into())));
    assert_eq!(run("kill", MAX_REQUEUES), (Some(137), None), "it gives up");
    assert_eq!(
        run("error", 0),
        (Some(1), None),
        "an error is no preemption"
    );
    let args = std::fs::read_to_string(fakes.path().join("retro.args")).unwrap();
    assert!(args.starts_with("generate chess KQvKR --out "), "{args}");
}

#[test]
fn status_tells_done_running_pending_and_failed() {
    let fakes = tempfile::tempdir().unwrap();
    let tables = tempfile::tempdir().unwrap();
    let a = SubmitArgs {
        variant: vec!["KQRvKR".into()],
        ..args(fakes.path(), tables.path())
    };
    let submitted = submit(&a).unwrap();
    let names: Vec<&str> = submitted.iter().map(|s| s.table.as_str()).collect();
    assert_eq!(
        names,
        ["KQvK", "KRvK", "KQvKR", "KRvKR", "KQRvK", "KQRvKR"],
        "{submitted:?}"
    );
    let chess = tables.path().join("chess");
    std::fs::create_dir_all(&chess).unwrap();
    for name in ["KQvK", "KRvK", "KQRvK"] {
        for ext in ["rwdl", "rdst"] {
            std::fs::write(chess.join(format!("{name}.{ext}")), b"x").unwrap();
        }
    }
    // KQvKR runs; KRvKR's job is gone without its table, its log says why; KQRvKR waits for it.
    std::fs::write(
        tables.path().join("slurm/logs/KRvKR-104.out"),
        "retro: job 104, run 1\nretro: cannot solve chess KRvKR: the disk is full\n\n",
    )
    .unwrap();
    let squeue = tool(
        fakes.path(),
        "squeue3",
        "echo '103|RUNNING|None'\necho '106|PENDING|Dependency'",
    );
    let rows = status(&StatusArgs {
        tables: tables.path().to_path_buf(),
        json: false,
        squeue: squeue.display().to_string(),
        sacct: "/nonexistent/sacct".into(),
    })
    .unwrap();
    let states: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| (r.table.as_str(), r.state, r.detail.as_str()))
        .collect();
    assert_eq!(
        states,
        [
            ("KQRvK", "done", ""),
            ("KQRvKR", "pending", "pending (Dependency)"),
            ("KQvK", "done", ""),
            ("KQvKR", "running", "running"),
            ("KRvK", "done", ""),
            (
                "KRvKR",
                "failed",
                "retro: cannot solve chess KRvKR: the disk is full"
            ),
        ]
    );
    // Where the cluster keeps accounting, its word on an ended job comes first.
    let sacct = tool(fakes.path(), "sacct", "echo '104|OUT_OF_MEMORY|0:125'");
    let rows = status(&StatusArgs {
        tables: tables.path().to_path_buf(),
        json: true,
        squeue: squeue.display().to_string(),
        sacct: sacct.display().to_string(),
    })
    .unwrap();
    let krvkr = rows.iter().find(|r| r.table == "KRvKR").unwrap();
    assert_eq!(krvkr.detail, "out_of_memory exit 0:125");
}

#[test]
fn bad_job_lists_and_other_games_are_refused_in_one_line() {
    let fakes = tempfile::tempdir().unwrap();
    let tables = tempfile::tempdir().unwrap();
    let a = args(fakes.path(), tables.path());
    submit(&a).unwrap();
    let slurm = tables.path().join(SLURM_DIR);
    let other = SubmitArgs {
        variant: vec![],
        ..SubmitArgs {
            game: "dobutsu".into(),
            ..args(fakes.path(), tables.path())
        }
    };
    let e = submit(&other).unwrap_err().to_string();
    assert!(e.contains("holds the jobs of chess"), "{e}");
    std::fs::write(slurm.join(JOBS_FILE), "KQvK 101\n").unwrap();
    let e = format!("{:#}", submit(&a).unwrap_err());
    assert!(e.contains("line 1: expected TABLE<tab>JOBID"), "{e}");
    let elsewhere = tempfile::tempdir().unwrap();
    let refused = SubmitArgs {
        sbatch: tool(
            fakes.path(),
            "sbatch-no",
            "echo 'sbatch: error: Invalid partition name specified' >&2; exit 1",
        )
        .display()
        .to_string(),
        ..args(fakes.path(), elsewhere.path())
    };
    let e = format!("{:#}", submit(&refused).unwrap_err());
    assert!(
        e.ends_with("sbatch: error: Invalid partition name specified"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    let none = status(&StatusArgs {
        tables: fakes.path().to_path_buf(),
        json: false,
        squeue: "squeue".into(),
        sacct: "sacct".into(),
    })
    .unwrap_err()
    .to_string();
    assert!(none.contains("holds no jobs"), "{none}");
}
