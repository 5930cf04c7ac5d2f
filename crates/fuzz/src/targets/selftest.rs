//! `selftest`: a target that fails on purpose, to test the harness itself.
//! Case `i` passes when `i % 4 == 0`, panics when `i % 4 == 1`, overflows
//! the stack when `i % 4 == 2` and reports a wrong answer when `i % 4 == 3`.

use super::{Failure, Target};
use crate::rng::Rng;

/// The self-test target.
pub struct SelfTest;

/// Recurses without end; `black_box` keeps the frames.
#[allow(unconditional_recursion)]
fn overflow(n: u64) -> u64 {
    let pad = std::hint::black_box([n; 64]);
    overflow(pad[(n % 64) as usize] + 1) + pad[0]
}

impl Target for SelfTest {
    fn name(&self) -> &'static str {
        "selftest"
    }

    fn extension(&self) -> &'static str {
        "txt"
    }

    fn generate(&self, rng: &mut Rng) -> String {
        // The case number is not visible to `generate`; the text carries a
        // random number whose residue picks the behaviour.
        rng.next().to_string()
    }

    fn check(&self, input: &str) -> Result<bool, Failure> {
        let n: u64 = input.parse().unwrap_or(0);
        match n % 4 {
            0 => Ok(true),
            1 => panic!("self-test panic"),
            2 => Ok(overflow(n) > 0),
            _ => Err(Failure::new("wrong", "self-test wrong answer")),
        }
    }
}
