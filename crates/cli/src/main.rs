//! `markerspec`: parse, evaluate and explain Python environment markers and requirements.
//!
//! Exit codes (stable):
//!
//! | code | `eval` | `parse` | `check` | `env` | `simplify`, `compare` | `solve` |
//! | --- | --- | --- | --- | --- | --- | --- |
//! | 0 | the marker is true (or, with `-`, every line was answered) | the input is valid | every requirement is valid | detected | answered | satisfiable |
//! | 1 | the marker is false | — | — | — | — | unsatisfiable |
//! | 2 | error: invalid input, unreadable file, bad flag | invalid input | an invalid requirement, or an error | error (an interpreter given with `--python` that fails, an invalid override) | error | error |
//! | 3 | the result is unknown (an environment value is unknown) | — | — | — | — | — |
//!
//! Without `--env`, `--fixture`, `--python-platform` or `--wheel-tag`, `eval` and `check`
//! evaluate against this machine as `markerspec env` detects it; `--set`, `--extra` and
//! `--python-version` change whichever environments are used.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use markerspec_pep508::{Dialect, ParseOptions, Profile};

/// The batch commands (`simplify -` above all) make and free many small values per line, and
/// drop whole contexts of them; mimalloc answers those faster than the system allocator, in
/// less memory (BENCHMARKS.md, "The allocator").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod algebra_cmd;
mod batch;
mod check_cmd;
mod conformance_cmd;
mod env_cmd;
mod envs;
mod eval_cmd;
mod files;
mod fixtures;
mod fuzz_cmd;
mod generate_cmd;
mod json;
mod text;

/// Parse, evaluate and explain Python environment markers (PEP 508) and their extended
/// GPU/ABI dialect.
#[derive(Parser, Debug)]
#[command(name = "markerspec", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which language to read and how to evaluate it.
#[derive(clap::Args, Debug, Clone, Copy)]
struct Language {
    /// Marker language: `pep508` (the standard) or `extended` (adds GPU/ABI fields).
    #[arg(long, default_value = "pep508")]
    dialect: Dialect,
    /// Behaviour for the standard fields: `spec-2026` (the living specification),
    /// `packaging` (what pypa/packaging 26 does, quirks included) or `uv` (what uv-pep508
    /// 0.0.98 accepts and evaluates: unreadable comparisons dropped, `===` rejected).
    #[arg(long, default_value = "spec-2026")]
    profile: Profile,
    /// Lock-file context: allow the `extras` and `dependency_groups` variables.
    #[arg(long)]
    lock_file: bool,
}

impl Language {
    fn options(self) -> ParseOptions {
        ParseOptions::default()
            .dialect(self.dialect)
            .profile(self.profile)
            .lock_file(self.lock_file)
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Detect this machine and print every marker field with its value and where it came from.
    ///
    /// Runs the host's C library loader, the Python interpreter (`python3`, or `--python`), the
    /// GPU probe and, in that interpreter, the cuDNN/NCCL/cuTENSOR probe, each with a time
    /// limit; `MARKERSPEC_<FIELD>` and conda's
    /// `CONDA_OVERRIDE_CUDA`, `CONDA_OVERRIDE_GLIBC` and `CONDA_OVERRIDE_CUDA_ARCH` override
    /// what is detected. Exits 0, or 2 on error.
    Env(env_cmd::EnvArgs),
    /// List each requirement of a file with whether it applies to this machine (or `--env`).
    ///
    /// With several environments (`--env`, `--fixture`, `--wheel-tag`, any mix), one column per
    /// environment and a count per environment in the summary.
    ///
    /// Reads requirements files (following `-r` and `-c`), `pyproject.toml` (dependencies,
    /// optional dependencies when their extra is requested, dependency groups with
    /// `include-group`) and core metadata (`Requires-Dist`); every line not evaluated is listed
    /// with the reason. Exits 0 when every requirement is valid, 2 when one is not, when an
    /// include cannot be followed, or on error.
    Check(check_cmd::CheckArgs),
    /// Run the conformance suite (`spec/vectors/`) against markerspec and against external
    /// implementations through adapters (`spec/PROTOCOL.md`), and print a matrix.
    ///
    /// Exits 0 when every implementation passes or diverges only as declared, 1 otherwise,
    /// 2 on error.
    Conformance(conformance_cmd::ConformanceArgs),
    /// Parse a requirement or marker and print its canonical form (or its syntax tree as JSON).
    ///
    /// With `-`, answers each line of stdin with one line: the canonical form, an empty line for
    /// a blank or `#` line, or `error: CODE message`.
    Parse(eval_cmd::ParseArgs),
    /// Evaluate a marker (or a requirement's marker) against one or more environments.
    ///
    /// Prints `true`, `false` or `unknown: FIELDS`; exits 0, 1 or 3 accordingly (with several
    /// environments: a table, and the exit code of the least certain answer), 2 on error.
    /// With `-`, answers each line of stdin with one line, an empty line for a blank or `#`
    /// line, `error: CODE message` for an invalid one.
    Eval(eval_cmd::EvalArgs),
    /// Print a marker in its simplest form (`true` / `false` for the constants), equal to the
    /// input wherever `--assume` holds.
    ///
    /// With `-`, answers each line of stdin with one line (`error: …` for an invalid one).
    /// Exits 0, or 2 on error.
    Simplify(algebra_cmd::SimplifyArgs),
    /// Print how two markers relate: `equivalent`, `implies` (A ⇒ B), `implied-by`,
    /// `disjoint` or `overlapping`; with `--json`, then one JSON object with the relation and
    /// an environment in which each of the four cells holds (`null` when none does).
    ///
    /// With `-`, reads `A<TAB>B` lines from stdin. Exits 0, or 2 on error.
    Compare(algebra_cmd::CompareArgs),
    /// Print an environment document in which the marker holds (exit 0), or `unsatisfiable`
    /// (exit 1); 2 on error.
    Solve(algebra_cmd::SolveArgs),
    /// Print generated markers, requirements or environments, one per line, reproducible from
    /// `--seed`: valid text, near misses (valid text changed by one edit) or both.
    ///
    /// For fuzzers in other languages and shell pipelines; exits 0.
    Generate(generate_cmd::GenerateArgs),
    /// Fuzz other implementations through their conformance adapters: generated cases run
    /// through markerspec (under the profile each adapter claims) and each adapter; every
    /// disagreement, crash or hang is shrunk, grouped by cause and written as vectors.
    ///
    /// Exits 0 when it ran, whatever it found; 2 on error.
    Fuzz(fuzz_cmd::FuzzArgs),
}

fn main() -> ExitCode {
    // Detection runs this program again as its isolated GPU probe (when no
    // `markerspec-gpu-probe` sits beside it).
    markerspec_env::run_probe_if_requested();
    match try_main() {
        Ok(code) => code,
        Err(message) => {
            eprintln!("markerspec: {message}");
            ExitCode::from(2)
        }
    }
}

/// Makes SIGINT, SIGTERM, SIGHUP and SIGQUIT take the children (the interpreter, the GPU
/// probe, conformance adapters) with this process, each with its whole process group. Called
/// by the commands that start children, before they do: the others (`parse`, `eval` and
/// `check` with given environments) start no thread for it.
pub(crate) fn guard_children() {
    if let Err(error) = markerspec_process::kill_children_on_signal() {
        eprintln!("markerspec: warning: children may outlive an interrupt: {error}");
    }
}

fn try_main() -> Result<ExitCode, String> {
    let cli = Cli::parse();
    match cli.command {
        Command::Env(args) => env_cmd::run(args),
        Command::Check(args) => check_cmd::run(args),
        Command::Conformance(args) => conformance_cmd::run(args),
        Command::Parse(args) => eval_cmd::parse(args),
        Command::Eval(args) => eval_cmd::eval(args),
        Command::Simplify(args) => algebra_cmd::simplify(args),
        Command::Compare(args) => algebra_cmd::compare(args),
        Command::Solve(args) => algebra_cmd::solve(args),
        Command::Generate(args) => generate_cmd::run(args),
        Command::Fuzz(args) => fuzz_cmd::run(args),
    }
}
