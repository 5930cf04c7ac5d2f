//! A tiny deterministic pseudo-random generator (xorshift64*) for the
//! inputs of [`crate::check`]: same seed, same inputs, on every platform.

/// Xorshift64* (Marsaglia; Vigna's multiplier).
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator started from `seed` (any value; zero is remapped).
    pub fn new(seed: u64) -> XorShift {
        // Splitmix-style scrambling so that nearby seeds diverge at once.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        XorShift(if z == 0 { 0x2545_f491_4f6c_dd1d } else { z })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A float uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * unit
    }

    /// An integer uniform in `[lo, hi]` (`lo <= hi`).
    pub fn int_in(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo) as u64 + 1;
        lo + (self.next_u64() % span) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::XorShift;

    #[test]
    fn same_seed_same_stream_and_values_stay_in_range() {
        let (mut a, mut b) = (XorShift::new(7), XorShift::new(7));
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
            let u = a.uniform(-1.0, 1.0);
            assert!((-1.0..1.0).contains(&u));
            let k = b.int_in(-3, 3);
            assert!((-3..=3).contains(&k));
        }
        assert_ne!(XorShift::new(1).next_u64(), XorShift::new(2).next_u64());
    }
}
