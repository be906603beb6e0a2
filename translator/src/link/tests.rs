use super::*;
use crate::{DeviceProfile, Program};

const HEAD: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

/// A kernel that stores `f(g)` through its pointer argument.
const USER: &str = r#"
.extern .global .align 4 .u32 g;
.extern .func (.param .b32 r) f(.param .b32 x);
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  ld.global.u32 %r1, [g];
  { .param .b32 p; .param .b32 q; st.param.b32 [p], %r1; call (q), f, (p); ld.param.b32 %r2, [q]; }
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r2;
  ret;
}
"#;

const PROVIDER: &str = r#"
.visible .global .align 4 .u32 g = 5;
.visible .func (.param .b32 r) f(.param .b32 x)
{
  .reg .b32 %a;
  ld.param.b32 %a, [x];
  add.u32 %a, %a, 1;
  st.param.b32 [r], %a;
  ret;
}
"#;

fn file(name: &str, body: &str) -> Arc<SourceFile> {
    SourceFile::new(name, format!("{HEAD}{body}"))
}

fn linked(inputs: &[Arc<SourceFile>]) -> Program {
    let out = link("linked.ptx", inputs).unwrap_or_else(|e| panic!("{e}"));
    Program::parse(out.clone()).unwrap_or_else(|d| panic!("{d}\n{}", out.text))
}

fn errors(inputs: &[Arc<SourceFile>]) -> String {
    match link("linked.ptx", inputs) {
        Ok(f) => panic!("linked:\n{}", f.text),
        Err(e) => e.0.iter().map(|d| d.short()).collect(),
    }
}

#[test]
fn extern_symbols_meet_their_definitions() {
    let p = linked(&[file("a.ptx", USER), file("b.ptx", PROVIDER)]);
    assert_eq!(p.kernel_names(), ["k"]);
    let k = p
        .translate_kernel("k", &DeviceProfile::lavapipe())
        .unwrap_or_else(|d| panic!("{d}"));
    #[cfg(feature = "validate")]
    crate::validate(&k.spirv).unwrap_or_else(|e| panic!("{e}"));
    // One definition of `g`, laid out once.
    assert_eq!(p.globals().size, 4, "{:?}", p.globals());
    // In either order.
    linked(&[file("b.ptx", PROVIDER), file("a.ptx", USER)]);
}

#[test]
fn the_newest_header_leads() {
    let a = SourceFile::new(
        "a.ptx",
        format!(".version 7.0\n.target sm_70\n.address_size 64\n{USER}"),
    );
    let b = SourceFile::new(
        "b.ptx",
        format!(".version 8.0\n.target sm_80\n.address_size 64\n{PROVIDER}"),
    );
    let out = link("linked.ptx", &[a, b]).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.text
            .starts_with(".version 8.0\n.target sm_80\n.address_size 64\n"),
        "{}",
        out.text
    );
    assert_eq!(out.text.matches(".version").count(), 1, "{}", out.text);
}

#[test]
fn an_unresolved_symbol_is_reported_where_it_is_used() {
    let msg = errors(&[file("a.ptx", USER)]);
    // The uses of `g` (line 10) and `f` (line 11), in the file that uses them.
    assert!(
        msg.contains("a.ptx:10:23: error: `g` is declared `.extern` but no module defines it"),
        "{msg}"
    );
    assert!(
        msg.contains("a.ptx:11:68: error: `f` is declared `.extern` but no module defines it"),
        "{msg}"
    );
}

#[test]
fn an_unused_extern_declaration_needs_no_definition() {
    let user = ".extern .func (.param .b32 r) unused(.param .b32 x);\n\
                .visible .entry k() { ret; }\n";
    linked(&[file("a.ptx", user)]);
}

#[test]
fn two_definitions_of_one_symbol_are_refused() {
    let msg = errors(&[
        file("a.ptx", USER),
        file("b.ptx", PROVIDER),
        file("c.ptx", PROVIDER),
    ]);
    assert!(
        msg.contains("c.ptx:5:32: error: `g` is defined in two modules"),
        "{msg}"
    );
    assert!(
        msg.contains("c.ptx:6:32: error: `f` is defined in two modules"),
        "{msg}"
    );
    let rendered = link("l", &[file("b.ptx", PROVIDER), file("c.ptx", PROVIDER)])
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        rendered.contains("first defined at b.ptx:5:32"),
        "{rendered}"
    );
}

#[test]
fn a_function_declared_as_a_variable_is_refused() {
    let user = ".extern .global .u32 f;\n.visible .entry k() { ret; }\n";
    let msg = errors(&[file("a.ptx", user), file("b.ptx", PROVIDER)]);
    assert!(
        msg.contains("a.ptx:4:22: error: `f` is declared as a variable but defined as a function"),
        "{msg}"
    );
}

#[test]
fn a_prototype_must_match_its_definition() {
    // Consistent in itself (its call checks), not with the definition.
    let user = ".extern .func (.param .b64 r) f(.param .b64 x);\n\
                .visible .entry k(.param .u64 out)\n\
                {\n\
                .reg .b64 %rd<3>;\n\
                ld.param.u64 %rd1, [out];\n\
                { .param .b64 p; .param .b64 q; st.param.b64 [p], %rd1; call (q), f, (p); \
                ld.param.b64 %rd2, [q]; }\n\
                st.global.u64 [%rd1], %rd2;\n\
                ret;\n\
                }\n";
    let msg = errors(&[file("a.ptx", user), file("b.ptx", PROVIDER)]);
    assert!(
        msg.contains(
            "a.ptx:4:31: error: `f` is declared as (.b64) (.b64) but defined as (.b32) (.b32)"
        ),
        "{msg}"
    );
    // Another name for a type of the same size is the same signature.
    let user = USER.replace("(.param .b32 x);", "(.param .u32 x);");
    linked(&[file("a.ptx", &user), file("b.ptx", PROVIDER)]);
}

/// numba's shape: a C-ABI `void` function declared with a `.b64` result, and a call that
/// names one.
const VOID_USER: &str = ".extern .func (.param .b64 r) consume(.param .b32 a);\n\
                         .visible .entry k(.param .u64 out)\n\
                         {\n\
                         .reg .b32 %r<2>; .reg .b64 %rd<3>;\n\
                         ld.param.u64 %rd1, [out];\n\
                         mov.u32 %r1, 21;\n\
                         { .param .b32 p; .param .b64 q; st.param.b32 [p], %r1; \
                         call (q), consume, (p); ld.param.b64 %rd2, [q]; }\n\
                         shl.b32 %r1, %r1, 1;\n\
                         st.global.u32 [%rd1], %r1;\n\
                         ret;\n\
                         }\n";

const VOID_PROVIDER: &str = ".visible .func consume(.param .b32 a)\n{\n ret;\n}\n";

#[test]
fn a_void_function_may_be_declared_with_a_result() {
    for inputs in [
        [file("a.ptx", VOID_USER), file("b.ptx", VOID_PROVIDER)],
        [file("b.ptx", VOID_PROVIDER), file("a.ptx", VOID_USER)],
    ] {
        let p = linked(&inputs);
        let k = p
            .translate_kernel("k", &DeviceProfile::lavapipe())
            .unwrap_or_else(|d| panic!("{d}"));
        #[cfg(feature = "validate")]
        crate::validate(&k.spirv).unwrap_or_else(|e| panic!("{e}"));
        #[cfg(not(feature = "validate"))]
        assert!(!k.spirv.is_empty());
    }
    // Only that way round: a function defined with a result is not declared without one,
    // and the parameters must still agree.
    let returns = ".visible .func (.param .b64 r) consume(.param .b32 a)\n{\n ret;\n}\n";
    let user = VOID_USER
        .replace("(.param .b64 r) consume", "consume")
        .replace(
            "call (q), consume, (p); ld.param.b64 %rd2, [q];",
            "call consume, (p);",
        );
    let msg = errors(&[file("a.ptx", &user), file("b.ptx", returns)]);
    assert!(
        msg.contains("`consume` is declared as () (.b32) but defined as (.b64) (.b32)"),
        "{msg}"
    );
    let user = VOID_USER
        .replace("consume(.param .b32 a)", "consume(.param .b64 a)")
        .replace(".param .b32 p;", ".param .b64 p;")
        .replace("st.param.b32 [p], %r1;", "st.param.b64 [p], %rd1;");
    let msg = errors(&[file("a.ptx", &user), file("b.ptx", VOID_PROVIDER)]);
    assert!(
        msg.contains("`consume` is declared as (.b64) (.b64) but defined as () (.b32)"),
        "{msg}"
    );
}

#[test]
fn an_input_that_does_not_check_is_reported_in_its_own_file() {
    let msg = errors(&[file("a.ptx", USER), file("b.ptx", "bogus;\n")]);
    assert!(msg.starts_with("b.ptx:4:1: error"), "{msg}");
}

/// Each module's local `count` (the same name in both) stays its own.
#[test]
fn module_local_names_stay_apart() {
    let local = |init: u32, kernel: &str| {
        format!(
            ".global .align 4 .u32 count = {init};\n\
             .visible .entry {kernel}(.param .u64 out)\n\
             {{\n  .reg .b32 %r; .reg .b64 %rd;\n  ld.global.u32 %r, [count];\n  \
             ld.param.u64 %rd, [out];\n  st.global.u32 [%rd], %r;\n  ret;\n}}\n"
        )
    };
    let p = linked(&[
        file("a.ptx", &local(1, "ka")),
        file("b.ptx", &local(2, "kb")),
    ]);
    assert_eq!(p.kernel_names(), ["ka", "kb"]);
    // Two variables, initialized 1 and 2.
    assert_eq!(p.globals().size, 8, "{:?}", p.globals());
    let text = &p.file().text;
    assert!(text.contains("count = 1;"), "{text}");
    assert!(text.contains("count_ptxvk_m1 = 2;"), "{text}");
    assert!(text.contains("[count_ptxvk_m1]"), "{text}");
}

/// A weak definition gives way to a strong one in another module, and to the first weak one.
#[test]
fn weak_definitions_give_way() {
    let weak = PROVIDER.replace(".visible .func", ".weak .func").replace(
        ".visible .global .align 4 .u32 g = 5;",
        ".weak .global .align 4 .u32 g = 6;",
    );
    let p = linked(&[
        file("a.ptx", USER),
        file("w.ptx", &weak),
        file("b.ptx", PROVIDER),
    ]);
    assert!(!p.file().text.contains(".weak"), "{}", p.file().text);
    let p = linked(&[
        file("a.ptx", USER),
        file("w.ptx", &weak),
        file("x.ptx", &weak),
    ]);
    assert_eq!(
        p.file().text.matches(".weak .func").count(),
        1,
        "{}",
        p.file().text
    );
}

#[test]
fn dynamic_shared_memory_is_declared_once() {
    let k = |name: &str| {
        format!(
            ".extern .shared .align 4 .b8 smem[];\n.visible .entry {name}() {{ .reg .b32 %r; \
             ld.shared.u32 %r, [smem]; ret; }}\n"
        )
    };
    let p = linked(&[file("a.ptx", &k("ka")), file("b.ptx", &k("kb"))]);
    assert_eq!(p.file().text.matches(".extern .shared").count(), 1);
}

#[test]
fn nothing_to_link_is_an_error() {
    assert!(link("l", &[]).is_err());
}
