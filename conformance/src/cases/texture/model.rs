//! A reference model of texture fetches, written from the PTX ISA (8.7.7: geometries, array
//! selection, cubemap face selection, mip levels, `tld4`'s footprint order) and CUDA's texture
//! fetching rules (Programming Guide, appendix "Texture Fetching": nearest-point sampling
//! `T[floor(x)]`, linear filtering `(1-a)T[i] + aT[i+1]` with `i = floor(x - 0.5)`,
//! `a = frac(x - 0.5)`, addressing modes, normalized coordinates `x * N`).
//!
//! Values are kept as read (`f64`): normalized integer formats already divided, integers
//! exact. Missing channels read as (g, b, a) = (0, 0, 1).

use ptxvk_runtime::{AddressMode, FilterMode, TextureShape};

/// A texture as the model sees it: every level's texels as read.
#[derive(Clone)]
pub struct Model {
    pub shape: TextureShape,
    /// Per level, texels of every layer (x fastest, then y, then z or layer), 4 channels.
    pub levels: Vec<Vec<[f64; 4]>>,
    pub filter: FilterMode,
    pub mip_filter: FilterMode,
    pub address: [AddressMode; 3],
    pub normalized: bool,
}

/// Where texel index `i` of a dimension of `n` texels reads, or `None` for the border.
fn address(i: i64, n: i64, mode: AddressMode) -> Option<i64> {
    match mode {
        AddressMode::Wrap => Some(i.rem_euclid(n)),
        AddressMode::Mirror => {
            // Mirrored repeat: 0 1 .. n-1 n-1 .. 1 0 0 1 ..
            let m = i.rem_euclid(2 * n);
            Some(if m < n { m } else { 2 * n - 1 - m })
        }
        AddressMode::ClampToBorder => (0..n).contains(&i).then_some(i),
        AddressMode::ClampToEdge | AddressMode::ClampOgl => Some(i.clamp(0, n - 1)),
    }
}

/// The cube face a direction selects and the (s, t) in [0, 1] on it (ISA 8.7.7.3: the major
/// axis picks the face, the other two are divided by its magnitude), with the faces in the
/// order +x -x +y -y +z -z and each face's axes as in OpenGL and Vulkan.
pub fn cube_face(x: f64, y: f64, z: f64) -> (u32, f64, f64) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    (face, (sc / ma + 1.0) / 2.0, (tc / ma + 1.0) / 2.0)
}

impl Model {
    fn dims(&self) -> usize {
        match self.shape {
            TextureShape::D1 { .. } | TextureShape::Layered1D { .. } => 1,
            TextureShape::D3 { .. } => 3,
            _ => 2,
        }
    }

    pub fn level_extent(&self, level: usize) -> [i64; 3] {
        self.shape.level_extent(level as u32).map(i64::from)
    }

    /// Texel (i, j, k) of `layer` at `level` after addressing; zeros (the border) outside.
    pub fn texel(&self, level: usize, layer: u32, ijk: [i64; 3]) -> [f64; 4] {
        let ext = self.level_extent(level);
        let mut at = [0i64; 3];
        for d in 0..self.dims() {
            match address(ijk[d], ext[d], self.address[d]) {
                Some(v) => at[d] = v,
                None => return [0.0; 4],
            }
        }
        let [w, h, dd] = ext;
        let idx = ((i64::from(layer) * dd + at[2]) * h + at[1]) * w + at[0];
        self.levels[level][idx as usize]
    }

    /// Texel coordinates (in texels of `level`) of normalized or unnormalized coordinates.
    fn scaled(&self, coords: &[f64], level: usize) -> Vec<f64> {
        let ext = self.level_extent(level);
        coords
            .iter()
            .enumerate()
            .map(|(d, c)| {
                if self.normalized {
                    // In f32, as hardware multiplies.
                    f64::from(*c as f32 * ext[d] as f32)
                } else {
                    *c
                }
            })
            .collect()
    }

    /// A sample at one level, and the largest difference between the texels that were
    /// blended (what imprecise filter weights can move the result by).
    fn sample_level(&self, coords: &[f64], layer: u32, level: usize) -> ([f64; 4], f64) {
        let x = self.scaled(coords, level);
        let n = self.dims();
        if self.filter == FilterMode::Nearest {
            let mut ijk = [0i64; 3];
            for d in 0..n {
                ijk[d] = x[d].floor() as i64;
            }
            return (self.texel(level, layer, ijk), 0.0);
        }
        let mut base = [0i64; 3];
        let mut a = [0f64; 3];
        for d in 0..n {
            let xb = x[d] - 0.5;
            base[d] = xb.floor() as i64;
            a[d] = xb - xb.floor();
        }
        let mut out = [0f64; 4];
        let (mut lo, mut hi) = ([f64::INFINITY; 4], [f64::NEG_INFINITY; 4]);
        for corner in 0..(1usize << n) {
            let mut ijk = base;
            let mut w = 1.0;
            for d in 0..n {
                let up = corner >> d & 1 == 1;
                if up {
                    ijk[d] += 1;
                }
                w *= if up { a[d] } else { 1.0 - a[d] };
            }
            let t = self.texel(level, layer, ijk);
            for c in 0..4 {
                out[c] += w * t[c];
                lo[c] = lo[c].min(t[c]);
                hi[c] = hi[c].max(t[c]);
            }
        }
        let span = (0..4).map(|c| hi[c] - lo[c]).fold(0.0, f64::max);
        (out, span * n as f64)
    }

    /// A sample at level of detail `lod` (clamped to the levels there are): the result and an
    /// error bound (filter weights are fixed-point with 8 fractional bits in CUDA, and Vulkan
    /// promises as much through `subTexelPrecisionBits`).
    pub fn sample(&self, coords: &[f64], layer: u32, lod: f64) -> ([f64; 4], f64) {
        let last = (self.levels.len() - 1) as f64;
        let lod = lod.clamp(0.0, last);
        if self.mip_filter == FilterMode::Nearest || self.levels.len() == 1 {
            // Nearest level: round half down (Vulkan's ceil(d + 0.5) - 1).
            let l = ((lod + 0.5).ceil() - 1.0).max(0.0) as usize;
            let (v, span) = self.sample_level(coords, layer, l);
            return (v, span / 256.0);
        }
        let l0 = lod.floor() as usize;
        let l1 = (l0 + 1).min(self.levels.len() - 1);
        let f = lod - lod.floor();
        let (a, sa) = self.sample_level(coords, layer, l0);
        let (b, sb) = self.sample_level(coords, layer, l1);
        let mut out = [0.0; 4];
        let mut between = 0f64;
        for c in 0..4 {
            out[c] = a[c] * (1.0 - f) + b[c] * f;
            between = between.max((a[c] - b[c]).abs());
        }
        (out, (sa + sb) / 256.0 + between / 16.0)
    }

    /// A cubemap sample: face selection, then 2D sampling on that face (layer
    /// `6 * cube + face`), at level 0.
    pub fn sample_cube(&self, dir: [f64; 3], cube: u32) -> ([f64; 4], f64) {
        let (face, s, t) = cube_face(dir[0], dir[1], dir[2]);
        let flat = Model {
            shape: TextureShape::Layered2D {
                width: self.shape.extent()[0],
                height: self.shape.extent()[1],
                layers: self.shape.layers(),
            },
            levels: self.levels.clone(),
            filter: self.filter,
            mip_filter: self.mip_filter,
            address: [AddressMode::ClampToEdge; 3],
            normalized: true,
        };
        let (v, span) = flat.sample_level(&[s, t], 6 * cube + face, 0);
        (v, span / 256.0)
    }

    /// `tld4`: component `comp` of the four texels of the bilinear footprint at level 0, in
    /// the order (i0, j1), (i1, j1), (i1, j0), (i0, j0): lower left first, counter-clockwise.
    pub fn gather(&self, coords: &[f64], layer: u32, comp: usize) -> [f64; 4] {
        let x = self.scaled(coords, 0);
        let (i0, j0) = ((x[0] - 0.5).floor() as i64, (x[1] - 0.5).floor() as i64);
        let at = |i, j| self.texel(0, layer, [i, j, 0])[comp];
        [
            at(i0, j0 + 1),
            at(i0 + 1, j0 + 1),
            at(i0 + 1, j0),
            at(i0, j0),
        ]
    }

    /// Integer coordinates: texel (i, j, k) of `level`, zeros outside the texture or its levels.
    pub fn fetch(&self, ijk: [i64; 3], layer: i64, layers: i64, level: i64) -> [f64; 4] {
        if !(0..self.levels.len() as i64).contains(&level) || !(0..layers).contains(&layer) {
            return [0.0; 4];
        }
        let ext = self.level_extent(level as usize);
        for d in 0..self.dims() {
            if !(0..ext[d]).contains(&ijk[d]) {
                return [0.0; 4];
            }
        }
        self.texel(level as usize, layer as u32, ijk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addressing_follows_the_modes() {
        let n = 4;
        let wrap: Vec<i64> = (-5..9)
            .map(|i| address(i, n, AddressMode::Wrap).unwrap())
            .collect();
        assert_eq!(wrap, [3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0]);
        let mirror: Vec<i64> = (-5..9)
            .map(|i| address(i, n, AddressMode::Mirror).unwrap())
            .collect();
        assert_eq!(mirror, [3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0]);
        assert_eq!(address(-1, n, AddressMode::ClampToEdge), Some(0));
        assert_eq!(address(7, n, AddressMode::ClampToEdge), Some(3));
        assert_eq!(address(4, n, AddressMode::ClampToBorder), None);
    }

    #[test]
    fn cube_faces_from_the_major_axis() {
        assert_eq!(cube_face(1.0, 0.0, 0.0), (0, 0.5, 0.5));
        assert_eq!(cube_face(-1.0, 0.5, 0.0), (1, 0.5, 0.25));
        assert_eq!(cube_face(0.0, 2.0, 1.0), (2, 0.5, 0.75));
        assert_eq!(cube_face(0.0, 0.0, -4.0), (5, 0.5, 0.5));
    }

    #[test]
    fn linear_filtering_is_the_cuda_formula() {
        let m = Model {
            shape: TextureShape::D1 { width: 2 },
            levels: vec![vec![[0.0, 0.0, 0.0, 1.0], [8.0, 0.0, 0.0, 1.0]]],
            filter: FilterMode::Linear,
            mip_filter: FilterMode::Nearest,
            address: [AddressMode::ClampToEdge; 3],
            normalized: false,
        };
        // x = 1.25: xB = 0.75, i = 0, a = 0.75.
        assert_eq!(m.sample(&[1.25], 0, 0.0).0[0], 6.0);
        // Clamped outside.
        assert_eq!(m.sample(&[-3.0], 0, 0.0).0[0], 0.0);
        assert_eq!(m.sample(&[9.0], 0, 0.0).0[0], 8.0);
    }
}
