//! A modifier the decoder leaves over is reported against the catalog row's modifier set: one
//! the instruction never takes is named, at its own span, with what the instruction does take
//! (the ISA's syntax block for it); one it takes, but not in this combination or not in this
//! form, keeps the message that says so.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::{Program, SourceFile};

fn kernel(body: &str) -> String {
    format!(
        ".version 8.6\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<8>;\n\t.reg .pred %p<4>;\n\
         {body}\n\tret;\n}}\n"
    )
}

/// The one error of `body`: its message, the text it points at, and its notes.
fn error(body: &str) -> (String, String, Vec<String>) {
    let src = kernel(body);
    let d = match Program::parse(SourceFile::new("k.ptx", src.clone())) {
        Ok(_) => panic!("`{body}` was accepted"),
        Err(d) => d,
    };
    let errors: Vec<_> = d.errors().collect();
    assert_eq!(errors.len(), 1, "`{body}`:\n{}", d.short());
    let e = errors[0];
    (
        e.message.clone(),
        src[e.span.range()].to_string(),
        e.notes.clone(),
    )
}

#[test]
fn a_modifier_the_instruction_never_takes_is_named_with_what_it_takes() {
    let (msg, at, notes) = error("\tshfl.sync.bfly.rn.b32 %r1, %r2, 1, 31, -1;");
    assert_eq!(msg, "`.rn` is not a modifier of `shfl`");
    assert!(
        at.contains("rn") && !at.contains("bfly"),
        "points at `{at}`"
    );
    // The ISA: shfl.sync.mode.b32 d[|p], a, b, c, membermask; .mode = { .up, .down, .bfly, .idx }.
    assert_eq!(
        notes,
        ["`shfl` takes .sync, mode .up .down .bfly .idx, type .b32"]
    );

    let (msg, at, notes) = error("\tld.global.evict.u32 %r1, [%rd1];");
    assert_eq!(msg, "`.evict` is not a modifier of `ld`");
    assert!(at.contains("evict"), "points at `{at}`");
    // A long set is cut into several notes, between groups.
    assert!(
        notes.len() > 1 && notes[0].starts_with("`ld` takes "),
        "{notes:?}"
    );
    let note = notes.join(", ");
    for group in [
        "state space .global .shared",
        "cache operator .ca .cg .cs .lu .cv",
        "scope .cta .cluster .gpu .sys",
    ] {
        assert!(note.contains(group), "`{note}` lacks `{group}`");
    }
}

#[test]
fn a_mnemonic_with_several_forms_names_the_form() {
    // No form of `add` takes `.wrap`; the note lists what the form the instruction is (integer
    // `add`, ISA 8.7.1.1: add{.sat}.type) takes.
    let (msg, _, notes) = error("\tadd.wrap.s32 %r1, %r2, %r3;");
    assert_eq!(msg, "`.wrap` is not a modifier of `add`");
    assert_eq!(
        notes,
        [
            "`add` as in 8.7.1.1 Integer Arithmetic Instructions: add takes .sat, \
             type .u16 .u32 .u64 .s16 .s32 .s64"
        ]
    );
}

#[test]
fn a_modifier_of_another_form_keeps_its_message() {
    // `.rn` is float `add`'s; on integer `add` it is in the wrong form.
    let (msg, at, notes) = error("\tadd.rn.s32 %r1, %r2, %r3;");
    assert_eq!(msg, "`.rn` is not a modifier of `add` here");
    assert!(at.contains("rn"), "points at `{at}`");
    assert_eq!(notes.len(), 1);
    assert!(notes[0].contains("Integer Arithmetic"), "{notes:?}");
}

#[test]
fn a_type_outside_the_set_is_a_type_error_not_a_leftover() {
    // The decoder reads the type and judges it; the set is not consulted.
    let (msg, _, _) = error("\tshfl.sync.bfly.b64 %rd1, %rd2, 1, 31, -1;");
    assert!(msg.contains("does not take type .b64"), "{msg}");
}
