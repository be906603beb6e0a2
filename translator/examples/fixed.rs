#[global_allocator]
static A: ptxvk_alloc::MiMalloc = ptxvk_alloc::MiMalloc;
use ptxvk_translator::{DeviceProfile, Program, SourceFile};
fn main() {
    let prof = DeviceProfile::named(&std::env::args().nth(1).unwrap()).unwrap();
    let n: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let mut s = String::from(".version 7.0\n.target sm_70\n.address_size 64\n");
    for i in 0..n {
        s += &format!(".visible .entry k{i}(.param .u64 a, .param .u32 b)\n{{\n\tret;\n}}\n");
    }
    let p = Program::parse(SourceFile::new("x.ptx", s)).unwrap();
    let out = std::hint::black_box(p.translate_all(&prof).unwrap());
    eprintln!("{} words", out.iter().map(|k| k.spirv.len()).sum::<usize>() / n);
}
