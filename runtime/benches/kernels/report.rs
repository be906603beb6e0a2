//! The benchmark's table, JSON and chart.

use std::time::Duration;

use ptxvk_runtime::Context;

use super::{Case, Work};

/// The target ratio against the twin (with the default settings).
const TARGET: f64 = 1.2;

pub struct Row {
    name: &'static str,
    size: String,
    work: Work,
    glsl: Duration,
    ptx: Duration,
    unchecked: Duration,
    /// The same PTX through NVIDIA's CUDA driver, where there is one.
    cuda: Option<Duration>,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

impl Row {
    pub fn new(
        case: &Case,
        glsl: Duration,
        ptx: Duration,
        unchecked: Duration,
        cuda: Option<Duration>,
    ) -> Row {
        Row {
            name: case.name,
            size: case.size.clone(),
            work: case.work,
            glsl,
            ptx,
            unchecked,
            cuda,
        }
    }

    /// ptxvk with the default settings against CUDA running the same PTX.
    fn ratio_cuda(&self) -> Option<f64> {
        self.cuda.map(|c| self.ptx.as_secs_f64() / c.as_secs_f64())
    }

    fn ratio(&self) -> f64 {
        self.ptx.as_secs_f64() / self.glsl.as_secs_f64()
    }

    fn ratio_unchecked(&self) -> f64 {
        self.unchecked.as_secs_f64() / self.glsl.as_secs_f64()
    }

    /// ptxvk's rate with the default settings, and its unit.
    fn rate(&self) -> (f64, &'static str) {
        let s = self.ptx.as_secs_f64();
        match self.work {
            Work::Bytes(b) => (b / s / 1e9, "GB/s"),
            Work::Flops(f) => (f / s / 1e9, "GFLOP/s"),
        }
    }

    pub fn print(&self) {
        let (rate, unit) = self.rate();
        let cuda = match (self.cuda, self.ratio_cuda()) {
            (Some(c), Some(r)) => format!(" {:>10.3} {r:>7.2}", ms(c)),
            _ => String::new(),
        };
        println!(
            "{:<16} {:<24} {:>10.3} {:>10.3} {:>6.2}{} {:>10.3} {:>6.2} {:>9.2} {unit}{cuda}",
            self.name,
            self.size,
            ms(self.glsl),
            ms(self.ptx),
            self.ratio(),
            if self.ratio() <= TARGET { " " } else { "*" },
            ms(self.unchecked),
            self.ratio_unchecked(),
            rate,
        );
    }
}

pub fn header(cuda: bool) {
    println!(
        "device time per run (timestamps, median); ratio = ptxvk / GLSL twin; * = over {TARGET}x"
    );
    println!(
        "{:<16} {:<24} {:>10} {:>10} {:>7} {:>10} {:>6} {:>14}{}",
        "kernel",
        "size",
        "GLSL ms",
        "ptxvk ms",
        "ratio",
        "unchecked",
        "ratio",
        "ptxvk rate",
        if cuda {
            format!(" {:>10} {:>7}", "CUDA ms", "vs CUDA")
        } else {
            String::new()
        }
    );
}

pub fn json(ctx: &Context, rows: &[Row]) -> String {
    let kernels: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let (rate, unit) = r.rate();
            serde_json::json!({
                "kernel": r.name,
                "size": r.size,
                "glsl_ms": ms(r.glsl),
                "ptxvk_ms": ms(r.ptx),
                "ptxvk_unchecked_ms": ms(r.unchecked),
                "ratio": r.ratio(),
                "ratio_unchecked": r.ratio_unchecked(),
                "memcheck_cost": r.ptx.as_secs_f64() / r.unchecked.as_secs_f64(),
                "cuda_ms": r.cuda.map(ms),
                "ratio_cuda": r.ratio_cuda(),
                "rate": rate,
                "rate_unit": unit,
            })
        })
        .collect();
    let doc = serde_json::json!({
        "device": ctx.info().name,
        "driver": ctx.info().driver,
        "memcheck_default": ctx.profile().memcheck,
        "target_ratio": TARGET,
        "kernels": kernels,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// A bar chart of both ratios per kernel, with the target drawn across.
pub fn svg(ctx: &Context, rows: &[Row]) -> String {
    let (left, top, bar, gap, width) = (130.0, 40.0, 9.0, 8.0, 520.0);
    let max = rows
        .iter()
        .flat_map(|r| [r.ratio(), r.ratio_unchecked()])
        .fold(TARGET * 1.25, f64::max);
    let x = |v: f64| left + v / max * width;
    let height = top + rows.len() as f64 * (2.0 * bar + gap) + 40.0;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"11\">\n<text x=\"10\" y=\"18\">ptxvk / GLSL \
         twin, device time, on {} ({}); dark: default settings, light: unchecked</text>\n",
        left + width + 60.0,
        escape(&ctx.info().name),
        escape(&ctx.info().driver)
    );
    for (i, r) in rows.iter().enumerate() {
        let y = top + i as f64 * (2.0 * bar + gap);
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
            left - 6.0,
            y + bar + 3.0,
            r.name
        ));
        for (j, (v, colour)) in [(r.ratio(), "#2b5d9b"), (r.ratio_unchecked(), "#9bbbe0")]
            .into_iter()
            .enumerate()
        {
            let yy = y + j as f64 * bar;
            s.push_str(&format!(
                "<rect x=\"{left}\" y=\"{yy}\" width=\"{:.1}\" height=\"{}\" fill=\"{colour}\"/>\
                 <text x=\"{:.1}\" y=\"{}\">{v:.2}</text>\n",
                x(v) - left,
                bar - 1.0,
                x(v) + 3.0,
                yy + bar - 2.0
            ));
        }
    }
    let bottom = height - 30.0;
    s.push_str(&format!(
        "<line x1=\"{0:.1}\" y1=\"{top}\" x2=\"{0:.1}\" y2=\"{bottom}\" stroke=\"#c33\" \
         stroke-dasharray=\"4 3\"/><text x=\"{0:.1}\" y=\"{1}\" fill=\"#c33\">target \
         {TARGET}x</text>\n<line x1=\"{2:.1}\" y1=\"{top}\" x2=\"{2:.1}\" y2=\"{bottom}\" \
         stroke=\"#888\"/><text x=\"{2:.1}\" y=\"{1}\" fill=\"#888\">1x</text>\n</svg>\n",
        x(TARGET),
        bottom + 14.0,
        x(1.0)
    ));
    s
}

fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
