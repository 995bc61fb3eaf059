//! `retro slurm submit` and `retro slurm status`: the tables of a variant built on a Slurm cluster, one job per
//! table.
//!
//! retro builds any one table within a memory budget, so the unit of distribution is a table and the scheduler is
//! the one every HPC site runs. Each table becomes a batch job that runs `retro generate ... --table NAME`, with
//! `--dependency=afterok:` on the jobs of the tables its exits read, `--mem` and `--cpus-per-task` from the plan
//! ([`crate::plan`]), and its own work directory so that a job requeued after preemption or a node failure resumes
//! from its last checkpoint. One job per table rather than one job array per level of the DAG: a table starts as
//! soon as its own sub-tables are done (a level waits for its slowest table), and each job asks for the memory its
//! table needs (an array's tasks all ask for the largest).
//!
//! Everything lives in the tables directory, which every node shares: the batch scripts in `DIR/slurm/` (written
//! for a person to read, and all that `--dry-run` does), their logs in `DIR/slurm/logs/`, the job of each table in
//! `DIR/slurm/jobs.tsv`, the work directories in `DIR/.retro-work/NAME`. `status` reads these, the tables on disk
//! and the queue.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, anyhow, bail};
use retro_family::{Family, Flags};

use crate::build::WORK_DIR;
use crate::plan::{
    Plan, TablePlan, files_present, human_bytes, human_seconds, make_plan, variants,
};
use crate::registry::{Visit, visit};

/// The folder of the batch scripts, logs and job list, inside the tables directory.
pub const SLURM_DIR: &str = "slurm";
/// The job of each table: `TABLE<TAB>JOBID` lines.
pub const JOBS_FILE: &str = "jobs.tsv";
/// The game whose tables the job list names.
const GAME_FILE: &str = "game";
/// How often a job whose retro was killed by a signal (preemption, a node lost, the OOM killer) is requeued before
/// it is left failed.
pub const MAX_REQUEUES: u32 = 3;
/// The smallest memory a job asks for: the process itself (binary, threads, the writer's compression contexts)
/// before any table.
pub const MIN_JOB_MEMORY: u64 = 128 << 20;

/// What `slurm submit` is asked.
#[derive(Clone, Debug, Default)]
pub struct SubmitArgs {
    pub game: String,
    pub variant: Vec<String>,
    pub all: Option<u32>,
    pub flags: Flags,
    /// The shared tables directory.
    pub tables: PathBuf,
    pub partition: Option<String>,
    /// The most memory a job may ask for (default: [`retro_engine::default_budget`] of this machine). A table that
    /// needs more in memory builds out of core within it.
    pub memory: Option<u64>,
    /// Cores per job (each build's threads).
    pub cpus: usize,
    /// Only write the batch scripts (and `submit.sh`, which submits them in order).
    pub dry_run: bool,
    /// The retro binary the jobs run (default: this one); it must be where the nodes see it.
    pub retro: Option<PathBuf>,
    /// The `sbatch` command (a test gives a stand-in).
    pub sbatch: String,
    /// The `squeue` command.
    pub squeue: String,
}

impl SubmitArgs {
    /// Arguments with the defaults of the command line.
    pub fn new(game: &str, tables: &Path) -> SubmitArgs {
        SubmitArgs {
            game: game.to_string(),
            tables: tables.to_path_buf(),
            cpus: 1,
            sbatch: "sbatch".into(),
            squeue: "squeue".into(),
            ..Default::default()
        }
    }
}

/// One job as submitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submitted {
    pub table: String,
    pub job: String,
    /// False when the job of an earlier submit was still queued and is kept.
    pub new: bool,
}

/// Runs `slurm submit`: prints `TABLE JOBID` for every job of the DAG.
pub fn submit(args: &SubmitArgs) -> Result<Vec<Submitted>> {
    visit(&args.game, Submit(args))?
}

struct Submit<'a>(&'a SubmitArgs);

impl Visit for Submit<'_> {
    type Output = Result<Vec<Submitted>>;
    fn visit<F: Family>(self, family: &F) -> Result<Vec<Submitted>> {
        let args = self.0;
        anyhow::ensure!(args.cpus > 0, "--cpus must be at least 1");
        let variants = variants(family, &args.variant, args.all, &args.flags)?;
        let budget = args.memory.unwrap_or_else(retro_engine::default_budget);
        let plan = make_plan(family, &variants, budget, args.cpus)?;
        if let Some(t) = plan.tables.iter().find(|t| !t.fits(budget)) {
            bail!(
                "{} {} cannot build within {}: the sub-tables it reads take {}, the writer and the process {} \
                 (give --memory at least {})",
                plan.game,
                t.name,
                human_bytes(budget),
                human_bytes(t.sub_table_bytes),
                human_bytes(t.least_overhead_bytes),
                human_bytes(t.minimum_bytes())
            );
        }
        std::fs::create_dir_all(&args.tables)
            .with_context(|| format!("cannot create {}", args.tables.display()))?;
        let dir = std::path::absolute(&args.tables)
            .with_context(|| format!("cannot resolve {}", args.tables.display()))?;
        let slurm = dir.join(SLURM_DIR);
        std::fs::create_dir_all(slurm.join("logs"))
            .with_context(|| format!("cannot create {}", slurm.join("logs").display()))?;
        claim_game(&slurm, plan.game)?;
        let retro = match &args.retro {
            Some(path) => std::path::absolute(path)?,
            None => std::env::current_exe().context("cannot tell where this retro binary is")?,
        };
        let job = JobCommand {
            retro,
            game: plan.game.to_string(),
            selection: selection_words(args),
            dir: dir.clone(),
            cwd: std::env::current_dir().context("cannot read the current directory")?,
            partition: args.partition.clone(),
        };
        let mut jobs = read_jobs(&slurm)?;
        let queued = if args.dry_run || jobs.is_empty() {
            BTreeMap::new()
        } else {
            queue_states(&args.squeue)?
        };
        let mut submitted = Vec::new();
        let mut dry_run_lines = Vec::new();
        let mut skipped = 0;
        for table in &plan.tables {
            if files_present(&dir, plan.game, &table.name) {
                skipped += 1;
                continue;
            }
            if let Some(id) = jobs.get(&table.name)
                && queued.get(id).is_some_and(Queued::is_active)
            {
                submitted.push(Submitted {
                    table: table.name.clone(),
                    job: id.clone(),
                    new: false,
                });
                continue;
            }
            let script = batch_script(&job, &plan, table);
            let path = slurm.join(format!("{}.sbatch", table.name));
            write_file(&path, &script)?;
            // The jobs this one waits for: its sub-tables', when they are not on disk already.
            let after: Vec<&str> = table
                .dependencies
                .iter()
                .filter_map(|d| submitted.iter().find(|s: &&Submitted| s.table == *d))
                .map(|s| s.job.as_str())
                .collect();
            if args.dry_run {
                dry_run_lines.push(dry_run_line(table, &path));
                submitted.push(Submitted {
                    table: table.name.clone(),
                    job: shell_variable(&table.name),
                    new: true,
                });
                continue;
            }
            let id = sbatch(&args.sbatch, &path, &after)?;
            jobs.insert(table.name.clone(), id.clone());
            // Recorded after every job, so that a submit that fails half-way still knows what it queued.
            write_jobs(&slurm, &jobs)?;
            submitted.push(Submitted {
                table: table.name.clone(),
                job: id,
                new: true,
            });
        }
        if args.dry_run {
            let path = slurm.join("submit.sh");
            write_file(&path, &submit_script(&dry_run_lines))?;
            set_executable(&path)?;
            eprintln!(
                "{} batch scripts written to {} ({skipped} tables already present); {} submits them in order",
                dry_run_lines.len(),
                slurm.display(),
                path.display()
            );
        } else {
            for s in &submitted {
                println!("{} {}", s.table, s.job);
            }
            let new = submitted.iter().filter(|s| s.new).count();
            eprintln!(
                "{new} jobs submitted, {} already queued, {skipped} tables already present; scripts and logs in {}",
                submitted.len() - new,
                slurm.display()
            );
        }
        Ok(submitted)
    }
}

/// What every job of a submit runs, less the table.
struct JobCommand {
    retro: PathBuf,
    game: String,
    /// The VARIANT words or `--all N`, and the flags, as given to `submit`.
    selection: Vec<String>,
    dir: PathBuf,
    cwd: PathBuf,
    partition: Option<String>,
}

fn selection_words(args: &SubmitArgs) -> Vec<String> {
    let mut words = args.variant.clone();
    if let Some(n) = args.all {
        words.push("--all".into());
        words.push(n.to_string());
    }
    if args.flags.misere {
        words.push("--misere".into());
    }
    if args.flags.edges {
        words.push("--edges".into());
    }
    words
}

/// A word quoted for the shell where it needs it.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn quote_path(path: &Path) -> String {
    quote(&path.to_string_lossy())
}

/// The memory a job asks for and gives retro's `--memory`, in whole MiB: what the table needs in memory, or the
/// budget when it builds out of core, at least [`MIN_JOB_MEMORY`].
pub fn job_memory_mib(plan: &Plan, table: &TablePlan) -> u64 {
    table
        .memory_request(plan.budget)
        .max(MIN_JOB_MEMORY)
        .div_ceil(1 << 20)
}

/// The time limit of a job: four times the estimate and ten minutes more (the estimate is from another machine's
/// rates; a job over its limit is killed, not requeued).
pub fn job_minutes(table: &TablePlan) -> u64 {
    (table.seconds * 4.0 / 60.0).ceil() as u64 + 10
}

fn slurm_time(minutes: u64) -> String {
    format!(
        "{}-{:02}:{:02}:00",
        minutes / 1440,
        minutes / 60 % 24,
        minutes % 60
    )
}

/// The batch script of one table.
fn batch_script(job: &JobCommand, plan: &Plan, table: &TablePlan) -> String {
    let mib = job_memory_mib(plan, table);
    let name = &table.name;
    let mut s = String::new();
    let _ = writeln!(s, "#!/bin/bash");
    let _ = writeln!(
        s,
        "# retro: builds the table {} {name}, one job of `retro slurm submit`.",
        job.game
    );
    if table.dependencies.is_empty() {
        let _ = writeln!(s, "# It reads no other table.");
    } else {
        let _ = writeln!(
            s,
            "# It reads the tables {}: it runs after their jobs succeed (--dependency=afterok, given at submission).",
            table.dependencies.join(" ")
        );
    }
    let build = if table.engine.sliced {
        format!(
            "out of core in {} slices, about {} of scratch files",
            table.engine.slices,
            human_bytes(table.engine.scratch_bytes)
        )
    } else {
        "in memory".to_string()
    };
    let _ = writeln!(
        s,
        "# Plan: {} indices, {build}, {} of memory in memory, files about {}, about {} with {} threads.",
        table.indices,
        human_bytes(table.in_memory_bytes),
        human_bytes(table.file_bytes),
        human_seconds(table.seconds),
        plan.threads
    );
    let _ = writeln!(s, "#SBATCH --job-name=retro-{}-{name}", job.game);
    let log = job
        .dir
        .join(SLURM_DIR)
        .join("logs")
        .join(format!("{name}-%j.out"));
    let _ = writeln!(s, "#SBATCH --output={}", log.display());
    // A requeued run appends to the log of the first.
    let _ = writeln!(s, "#SBATCH --open-mode=append");
    let _ = writeln!(s, "#SBATCH --mem={mib}M");
    let _ = writeln!(s, "#SBATCH --cpus-per-task={}", plan.threads);
    let _ = writeln!(s, "#SBATCH --time={}", slurm_time(job_minutes(table)));
    let _ = writeln!(s, "#SBATCH --requeue");
    let _ = writeln!(s, "#SBATCH --chdir={}", job.cwd.display());
    if let Some(p) = &job.partition {
        let _ = writeln!(s, "#SBATCH --partition={p}");
    }
    let _ = writeln!(s, "set -u");
    let _ = writeln!(
        s,
        "echo \"retro: job ${{SLURM_JOB_ID:-none}}, run $((${{SLURM_RESTART_COUNT:-0}} + 1)), on $(hostname) at $(date -u +%FT%TZ)\""
    );
    // The table alone (its sub-tables are on disk: this job ran after theirs), within the job's memory, with a
    // work directory of its own so that a requeued run resumes from the last checkpoint. A table already present
    // and sound is kept, and the job ends at once. Not `--quiet`: the log then says how the build went out of core
    // and from which generation a requeued run resumed (no progress bar is drawn without a terminal).
    let mut command = vec![quote_path(&job.retro), "generate".into(), quote(&job.game)];
    command.extend(job.selection.iter().map(|w| quote(w)));
    command.extend([
        "--out".into(),
        quote_path(&job.dir),
        "--table".into(),
        quote(name),
        "--memory".into(),
        format!("{mib}M"),
        "--threads".into(),
        plan.threads.to_string(),
        "--work".into(),
        quote_path(&job.dir.join(WORK_DIR).join(name)),
    ]);
    let _ = writeln!(s, "{}", command.join(" "));
    let _ = writeln!(s, "status=$?");
    // Killed by a signal (preempted, its node lost, killed by hand): back to the queue, to resume from the last
    // checkpoint. An error of retro's own (a missing sub-table, a full disk) fails the job, and its dependents with it.
    let _ = writeln!(
        s,
        "if [ \"$status\" -gt 128 ] && [ \"${{SLURM_RESTART_COUNT:-0}}\" -lt {MAX_REQUEUES} ]; then"
    );
    let _ = writeln!(
        s,
        "    echo \"retro: killed by signal $((status - 128)); requeueing job $SLURM_JOB_ID to resume from its checkpoint\""
    );
    let _ = writeln!(s, "    scontrol requeue \"$SLURM_JOB_ID\" && sleep 600");
    let _ = writeln!(s, "fi");
    let _ = writeln!(s, "exit \"$status\"");
    s
}

/// A shell variable holding a table's job id in `submit.sh`.
fn shell_variable(table: &str) -> String {
    let name: String = table
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("job_{name}")
}

/// The line of `submit.sh` that submits one table's script after its sub-tables' jobs.
fn dry_run_line(table: &TablePlan, script: &Path) -> String {
    let var = shell_variable(&table.name);
    let after: Vec<String> = table
        .dependencies
        .iter()
        .map(|d| format!("${{{}:-}}", shell_variable(d)))
        .collect();
    // Double quotes: the job ids are expanded when the line runs.
    format!(
        "{var}=$(submit {} \"{}\")",
        quote_path(script),
        after.join(" ")
    )
}

/// `submit.sh`: the scripts submitted in order, each with `afterok` on the jobs of its sub-tables that this script
/// submitted (a sub-table already on disk when the scripts were written has no job).
fn submit_script(lines: &[String]) -> String {
    let mut s = String::from(
        "#!/bin/bash\n\
         # Written by `retro slurm submit --dry-run`: submits the batch scripts beside it, each after the jobs of the\n\
         # tables it reads. Prints TABLE JOBID per job.\n\
         set -euo pipefail\n\
         submit() {\n    \
             local script=$1 after=\"\" id\n    \
             for id in $2; do [ -n \"$id\" ] && after=\"$after:$id\"; done\n    \
             if [ -n \"$after\" ]; then\n        \
                 id=$(sbatch --parsable --dependency=\"afterok$after\" --kill-on-invalid-dep=yes \"$script\")\n    \
             else\n        \
                 id=$(sbatch --parsable \"$script\")\n    \
             fi\n    \
             id=${id%%;*}\n    \
             echo \"$(basename \"$script\" .sbatch) $id\" >&2\n    \
             echo \"$id\"\n\
         }\n",
    );
    for line in lines {
        s.push_str(line);
        s.push('\n');
    }
    s
}

/// Submits one script, after the jobs `after`; the new job's id.
fn sbatch(command: &str, script: &Path, after: &[&str]) -> Result<String> {
    let mut c = Command::new(command);
    c.arg("--parsable");
    if !after.is_empty() {
        // A dependency that can never be met (a sub-table's job failed) cancels the job rather than leaving it
        // pending for ever.
        c.arg(format!("--dependency=afterok:{}", after.join(":")));
        c.arg("--kill-on-invalid-dep=yes");
    }
    c.arg(script);
    let output = c
        .output()
        .map_err(|e| anyhow!("cannot run {command}: {e} (is Slurm installed here?)"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        bail!(
            "{command} refused {}: {}",
            script.display(),
            stderr.trim().lines().last().unwrap_or("no message")
        );
    }
    // `--parsable` prints `ID` or `ID;CLUSTER`.
    let id = stdout.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit() || c == '_') {
        bail!(
            "{command} answered {:?} for {}, not a job id",
            stdout.trim(),
            script.display()
        );
    }
    Ok(id)
}

/// Makes sure `slurm` keeps the jobs of `game` alone: its job list names tables of one game.
fn claim_game(slurm: &Path, game: &str) -> Result<()> {
    let path = slurm.join(GAME_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) if text.trim() == game => Ok(()),
        Ok(text) => bail!(
            "{} holds the jobs of {}: give {game} another tables directory",
            slurm.display(),
            text.trim()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            write_file(&path, &format!("{game}\n"))
        }
        Err(e) => Err(anyhow!("cannot read {}: {e}", path.display())),
    }
}

/// The job list: table name to job id.
fn read_jobs(slurm: &Path) -> Result<BTreeMap<String, String>> {
    let path = slurm.join(JOBS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => bail!("cannot read {}: {e}", path.display()),
    };
    let mut jobs = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split('\t');
        match (fields.next(), fields.next(), fields.next()) {
            (Some(table), Some(job), None) if !table.is_empty() && !job.is_empty() => {
                jobs.insert(table.to_string(), job.to_string());
            }
            _ => bail!(
                "{} line {}: expected TABLE<tab>JOBID, found {line:?}",
                path.display(),
                n + 1
            ),
        }
    }
    Ok(jobs)
}

fn write_jobs(slurm: &Path, jobs: &BTreeMap<String, String>) -> Result<()> {
    let text: String = jobs.iter().map(|(t, j)| format!("{t}\t{j}\n")).collect();
    write_file(&slurm.join(JOBS_FILE), &text)
}

/// Writes a file whole under a temporary name, then renames it: a reader never sees half of it.
fn write_file(path: &Path, text: &str) -> Result<()> {
    let temporary = path.with_extension("partial");
    std::fs::write(&temporary, text)
        .and_then(|()| std::fs::rename(&temporary, path))
        .with_context(|| format!("cannot write {}", path.display()))
}

fn set_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make {} executable", path.display()))
}

/// A job's state in the queue, and why it waits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Queued {
    pub state: String,
    pub reason: String,
}

impl Queued {
    /// Whether the job will still run: pending, running, requeued or suspended, not ended (`squeue` shows ended jobs
    /// for a few minutes).
    pub fn is_active(&self) -> bool {
        !matches!(
            self.state.as_str(),
            "COMPLETED"
                | "FAILED"
                | "CANCELLED"
                | "TIMEOUT"
                | "NODE_FAIL"
                | "PREEMPTED"
                | "OUT_OF_MEMORY"
                | "BOOT_FAIL"
                | "DEADLINE"
        )
    }
}

/// The jobs in the queue, by id (every user's: ids are unique).
fn queue_states(squeue: &str) -> Result<BTreeMap<String, Queued>> {
    let output = Command::new(squeue)
        .args(["-h", "-a", "-o", "%i|%T|%r"])
        .output()
        .map_err(|e| anyhow!("cannot run {squeue}: {e} (is Slurm installed here?)"))?;
    if !output.status.success() {
        bail!(
            "{squeue} failed: {}",
            String::from_utf8_lossy(&output.stderr)
                .trim()
                .lines()
                .last()
                .unwrap_or("no message")
        );
    }
    Ok(parse_queue(&String::from_utf8_lossy(&output.stdout)))
}

/// Reads `squeue -h -o '%i|%T|%r'` lines.
fn parse_queue(text: &str) -> BTreeMap<String, Queued> {
    text.lines()
        .filter_map(|line| {
            let mut f = line.trim().split('|');
            let id = f.next()?.trim();
            let state = f.next()?.trim();
            let reason = f.next().unwrap_or("").trim();
            (!id.is_empty()).then(|| {
                (
                    id.to_string(),
                    Queued {
                        state: state.to_string(),
                        reason: reason.to_string(),
                    },
                )
            })
        })
        .collect()
}

/// What `slurm status` is asked.
#[derive(Clone, Debug)]
pub struct StatusArgs {
    pub tables: PathBuf,
    pub json: bool,
    pub squeue: String,
    pub sacct: String,
}

/// The state of one table of a submit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableStatus {
    pub table: String,
    pub job: String,
    /// `done`, `running`, `pending` or `failed`.
    pub state: &'static str,
    /// Why, in a few words: the queue's reason, the accounting's state, the log's last line.
    pub detail: String,
}

/// Runs `slurm status`.
pub fn status(args: &StatusArgs) -> Result<Vec<TableStatus>> {
    let slurm = args.tables.join(SLURM_DIR);
    let game = std::fs::read_to_string(slurm.join(GAME_FILE))
        .map_err(|_| {
            anyhow!(
                "{} holds no jobs of `retro slurm submit`",
                args.tables.display()
            )
        })?
        .trim()
        .to_string();
    let jobs = read_jobs(&slurm)?;
    let queue = match queue_states(&args.squeue) {
        Ok(q) => Some(q),
        Err(e) => {
            eprintln!(
                "retro: the queue is unknown ({e:#}); tables not on disk are shown as unknown"
            );
            None
        }
    };
    let ended = accounting(&args.sacct, jobs.values());
    let mut rows = Vec::new();
    for (table, job) in &jobs {
        let (state, detail) = if files_present(&args.tables, &game, table) {
            ("done", String::new())
        } else if let Some(q) = queue
            .as_ref()
            .and_then(|q| q.get(job))
            .filter(|q| q.is_active())
        {
            match q.state.as_str() {
                "RUNNING" | "COMPLETING" | "CONFIGURING" => ("running", q.state.to_lowercase()),
                _ => (
                    "pending",
                    format!("{} ({})", q.state.to_lowercase(), q.reason),
                ),
            }
        } else if queue.is_none() {
            ("unknown", String::new())
        } else {
            let why = ended
                .get(job)
                .cloned()
                .or_else(|| last_log_line(&slurm, table, job))
                .unwrap_or_else(|| "not in the queue, and no table".into());
            ("failed", why)
        };
        rows.push(TableStatus {
            table: table.clone(),
            job: job.clone(),
            state,
            detail,
        });
    }
    if args.json {
        let items: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "{{\"table\":{},\"job\":{},\"state\":\"{}\",\"detail\":{}}}",
                    crate::json::string(&r.table),
                    crate::json::string(&r.job),
                    r.state,
                    crate::json::string(&r.detail)
                )
            })
            .collect();
        println!(
            "{{\"game\":{},\"tables\":[{}]}}",
            crate::json::string(&game),
            items.join(",")
        );
    } else {
        print!("{}", status_text(&game, &args.tables, &rows));
    }
    Ok(rows)
}

fn status_text(game: &str, dir: &Path, rows: &[TableStatus]) -> String {
    let count = |s: &str| rows.iter().filter(|r| r.state == s).count();
    let mut out = format!(
        "{game} in {}: {} tables: {} done, {} running, {} pending, {} failed",
        dir.display(),
        rows.len(),
        count("done"),
        count("running"),
        count("pending"),
        count("failed")
    );
    if count("unknown") > 0 {
        let _ = write!(out, ", {} unknown", count("unknown"));
    }
    out.push('\n');
    let width = rows.iter().map(|r| r.table.len()).max().unwrap_or(5);
    for r in rows {
        let _ = writeln!(
            out,
            "{:<width$} {:<8} job {:<10} {}",
            r.table, r.state, r.job, r.detail
        );
    }
    out
}

/// The end state of jobs from Slurm's accounting (`sacct`), where the cluster keeps it: `FAILED exit 1:0`.
fn accounting<'a>(sacct: &str, jobs: impl Iterator<Item = &'a String>) -> BTreeMap<String, String> {
    let ids: Vec<&str> = jobs.map(String::as_str).collect();
    if ids.is_empty() {
        return BTreeMap::new();
    }
    let Ok(output) = Command::new(sacct)
        .args(["-n", "-P", "-X", "-o", "JobID,State,ExitCode", "-j"])
        .arg(ids.join(","))
        .output()
    else {
        return BTreeMap::new();
    };
    if !output.status.success() {
        return BTreeMap::new();
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let mut f = line.split('|');
            let (id, state, exit) = (f.next()?, f.next()?, f.next()?);
            Some((
                id.to_string(),
                format!("{} exit {exit}", state.to_lowercase()),
            ))
        })
        .collect()
}

/// The last line of a job's log, where it says why it stopped.
fn last_log_line(slurm: &Path, table: &str, job: &str) -> Option<String> {
    let text =
        std::fs::read_to_string(slurm.join("logs").join(format!("{table}-{job}.out"))).ok()?;
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_string())
}

#[cfg(test)]
mod tests;
