//! A run of the SPIR-V emitted for a random CFG of `structured_spirv.rs`, to compare with the
//! IR's interpreter's run of the CFG (`ptxvk_translator::interp`). It reports the values stored
//! to the variables `counter` and `seen`, in order, up to a bound (a random CFG may loop
//! forever).
//!
//! It is a small interpreter of the instructions those functions become (32-bit integer
//! arithmetic, comparisons, selects, function variables, branches), written from the SPIR-V
//! specification's text; what the emitter adds around the body (a spill slice, a status
//! word) is run as far as it matters, and anything else stops the run with an error, so that an
//! unexpected instruction cannot pass silently. Its merge instructions are ignored: structured
//! control flow only constrains where branches may go, not where they do.

use std::collections::HashMap;

/// The stores of one run: (variable name, value).
pub type Trace = Vec<(String, u32)>;

// Opcodes, from the SPIR-V specification's table of instructions.
const OP_NAME: u32 = 5;
const OP_ENTRY_POINT: u32 = 15;
const OP_CONSTANT_TRUE: u32 = 41;
const OP_CONSTANT_FALSE: u32 = 42;
const OP_CONSTANT: u32 = 43;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_END: u32 = 56;
const OP_VARIABLE: u32 = 59;
const OP_LOAD: u32 = 61;
const OP_STORE: u32 = 62;
const OP_IADD: u32 = 128;
const OP_UMOD: u32 = 137;
const OP_SELECT: u32 = 169;
const OP_IEQUAL: u32 = 170;
const OP_INOT_EQUAL: u32 = 171;
const OP_ULESS_THAN: u32 = 176;
const OP_LOOP_MERGE: u32 = 246;
const OP_SELECTION_MERGE: u32 = 247;
const OP_LABEL: u32 = 248;
const OP_BRANCH: u32 = 249;
const OP_BRANCH_CONDITIONAL: u32 = 250;
const OP_RETURN: u32 = 253;
const OP_UNREACHABLE: u32 = 255;

/// Runs the entry point of the SPIR-V module `words`: its variables named `counter` and `seen`
/// start as `start`, and their stores, until `limit` were made, are the trace.
pub fn run_spirv(words: &[u32], start: (u32, u32), limit: usize) -> Result<Trace, String> {
    let mut insts: Vec<&[u32]> = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let n = (words[at] >> 16) as usize;
        if n == 0 || at + n > words.len() {
            return Err(format!("malformed instruction at word {at}"));
        }
        insts.push(&words[at..at + n]);
        at += n;
    }
    let op = |i: &[u32]| i[0] & 0xffff;
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut values: HashMap<u32, u32> = HashMap::new();
    let mut entry = None;
    for i in &insts {
        match op(i) {
            OP_NAME => {
                let bytes: Vec<u8> = i[2..].iter().flat_map(|w| w.to_le_bytes()).collect();
                let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
                names.insert(i[1], String::from_utf8_lossy(&bytes[..end]).into_owned());
            }
            OP_ENTRY_POINT => entry = Some(i[2]),
            OP_CONSTANT => {
                values.insert(i[2], i[3]);
            }
            OP_CONSTANT_TRUE => {
                values.insert(i[2], 1);
            }
            OP_CONSTANT_FALSE => {
                values.insert(i[2], 0);
            }
            _ => {}
        }
    }
    let entry = entry.ok_or("no entry point")?;
    let first = insts
        .iter()
        .position(|i| op(i) == OP_FUNCTION && i[2] == entry)
        .ok_or("no entry function")?;
    let end = first
        + insts[first..]
            .iter()
            .position(|i| op(i) == OP_FUNCTION_END)
            .ok_or("no function end")?;
    let body = &insts[first..end];
    let labels: HashMap<u32, usize> = body
        .iter()
        .enumerate()
        .filter(|(_, i)| op(i) == OP_LABEL)
        .map(|(k, i)| (i[1], k))
        .collect();
    let traced = |id: u32| match names.get(&id).map(String::as_str) {
        Some("counter") => Some("counter"),
        Some("seen") => Some("seen"),
        _ => None,
    };
    // Variables: their initializer, or for `counter` and `seen` the run's start (SPIR-V leaves
    // a variable without one undefined, as the IR leaves a never-stored variable).
    let mut memory: HashMap<u32, u32> = HashMap::new();
    for i in body.iter().filter(|i| op(i) == OP_VARIABLE) {
        match traced(i[2]) {
            Some("counter") => memory.insert(i[2], start.0),
            Some(_) => memory.insert(i[2], start.1),
            None => i.get(4).and_then(|init| memory.insert(i[2], values[init])),
        };
    }
    let mut trace = Trace::new();
    let get = |values: &HashMap<u32, u32>, id: u32| {
        values
            .get(&id)
            .copied()
            .ok_or_else(|| format!("%{id} used with no value"))
    };
    let mut pc = 1;
    for _step in 0..1_000_000 {
        let i = body[pc];
        pc += 1;
        match op(i) {
            OP_LABEL | OP_VARIABLE | OP_LOOP_MERGE | OP_SELECTION_MERGE => {}
            OP_LOAD => {
                let v = *memory
                    .get(&i[3])
                    .ok_or_else(|| format!("load of %{} before a store", i[3]))?;
                values.insert(i[2], v);
            }
            OP_STORE => {
                let v = get(&values, i[2])?;
                memory.insert(i[1], v);
                if let Some(name) = traced(i[1]) {
                    trace.push((name.to_string(), v));
                    if trace.len() == limit {
                        return Ok(trace);
                    }
                }
            }
            OP_IADD | OP_UMOD | OP_IEQUAL | OP_INOT_EQUAL | OP_ULESS_THAN => {
                let (x, y) = (get(&values, i[3])?, get(&values, i[4])?);
                let v = match op(i) {
                    OP_IADD => x.wrapping_add(y),
                    OP_UMOD => x.checked_rem(y).ok_or("UMod by 0")?,
                    OP_IEQUAL => u32::from(x == y),
                    OP_INOT_EQUAL => u32::from(x != y),
                    _ => u32::from(x < y),
                };
                values.insert(i[2], v);
            }
            OP_SELECT => {
                let c = get(&values, i[3])?;
                let v = get(&values, if c != 0 { i[4] } else { i[5] })?;
                values.insert(i[2], v);
            }
            OP_BRANCH => pc = labels[&i[1]],
            OP_BRANCH_CONDITIONAL => {
                let c = get(&values, i[1])?;
                pc = labels[&if c != 0 { i[2] } else { i[3] }];
            }
            OP_RETURN => return Ok(trace),
            OP_UNREACHABLE => return Err("reached OpUnreachable".into()),
            other => return Err(format!("opcode {other} not interpreted")),
        }
    }
    Err("no end after 1,000,000 instructions".into())
}
