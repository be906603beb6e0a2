//! The `ptxvk` command line: clap's parse of the whole command, then everything `ptxvk run`
//! parses before it reads a file or opens a device (grid, block, `--arg` and `--out` specs,
//! scalar values and buffer contents). The CLI's own source files are compiled in as they
//! are, so that what is fuzzed is what ships.

use std::cell::RefCell;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use clap::{CommandFactory, FromArgMatches};

use crate::{args, cli};

/// Buffers past this are refused as the CLI refuses those past the device's memory.
const MAX_BYTES: u64 = 1 << 20;

thread_local! {
    /// The command as the derive builds it, built once. `Cli::try_parse_from` would build it
    /// anew for every input (the subcommands, every argument, clap's debug checks of them, and
    /// the drop of it all), which was 40% of this target's time; the CLI itself builds it once
    /// per process, so reusing it changes nothing that is fuzzed.
    static COMMAND: RefCell<clap::Command> = RefCell::new(cli::Cli::command());
}

/// One input.
pub fn run(data: &[u8]) {
    // NUL separates arguments (no argument can hold one); any other byte, UTF-8 or not, may.
    let argv = std::iter::once(OsString::from("ptxvk")).chain(
        data.split(|&b| b == 0)
            .map(|a| OsString::from_vec(a.to_vec())),
    );
    let Some(parsed) = COMMAND.with_borrow_mut(|cmd| {
        let mut matches = cmd.try_get_matches_from_mut(argv).ok()?;
        cli::Cli::from_arg_matches_mut(&mut matches).ok()
    }) else {
        return;
    };
    let run = match &parsed.command {
        cli::Command::Run(r) => r,
        cli::Command::Bench(b) => &b.run,
        _ => return,
    };
    let Ok(spec) = run.launch_spec() else {
        return;
    };
    for arg in &spec.args {
        match arg {
            args::ArgSpec::Scalar { ty, text } => {
                for ty in ty.iter().copied().chain([
                    ptxvk_runtime::translator::ScalarType::U8,
                    ptxvk_runtime::translator::ScalarType::S64,
                    ptxvk_runtime::translator::ScalarType::F16,
                    ptxvk_runtime::translator::ScalarType::F64,
                ]) {
                    if let Ok(bytes) = args::value_bytes(text, ty) {
                        assert_eq!(bytes.len(), ty.bytes() as usize, "{text} as {ty}");
                        let _ = args::format_value(&bytes, ty);
                    }
                }
            }
            // Files are the CLI's to read, not the fuzzer's.
            args::ArgSpec::Buffer {
                init: args::Init::File(_),
                ..
            } => {}
            args::ArgSpec::Buffer {
                ty, count, init, ..
            } => {
                if let Ok(bytes) = args::init_bytes(*ty, *count, init, MAX_BYTES) {
                    let size = ty.bytes() as usize;
                    assert_eq!(bytes.len() % size, 0);
                    if let Some(n) = count {
                        assert_eq!(bytes.len(), n * size);
                        assert!(bytes.len() as u64 <= MAX_BYTES);
                    }
                }
            }
        }
    }
}
