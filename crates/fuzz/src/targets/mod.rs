//! The fuzz targets: each turns a random generator into an input text and
//! checks what the front end and analysis make of it.

use crate::rng::Rng;

pub mod expr;
pub mod hlo;
pub mod layout;
pub mod map;
pub mod selftest;
pub mod tc;
pub mod te;

/// A wrong answer found by a target's oracle (panics and aborts are caught
/// by the runner, not reported here).
#[derive(Debug)]
pub struct Failure {
    /// A short class name, the same for every instance of one kind of bug
    /// (`unsound`, `bound`, `roundtrip`, `mismatch`, ...).
    pub class: String,
    /// What was observed, with the values that show it.
    pub message: String,
}

impl Failure {
    /// A failure of class `class`.
    pub fn new(class: &str, message: impl Into<String>) -> Failure {
        Failure {
            class: class.to_string(),
            message: message.into(),
        }
    }
}

/// One fuzz target.
pub trait Target: Sync {
    /// The name on the command line.
    fn name(&self) -> &'static str;
    /// The file extension of a reproducer (`txt`, `hlo`, `py`).
    fn extension(&self) -> &'static str;
    /// The input of one case: generated, or generated then mutated.
    fn generate(&self, rng: &mut Rng) -> String;
    /// Runs the front end and analysis on `input` and checks the answers:
    /// `Ok(true)` when the front end accepted the input and every check
    /// passed, `Ok(false)` when it rejected the input with an error (which
    /// is fine). Wrong answers are failures.
    fn check(&self, input: &str) -> Result<bool, Failure>;
}

/// Every target, by name.
pub fn all() -> [&'static dyn Target; 6] {
    [
        &expr::ExprTarget,
        &map::MapTarget,
        &hlo::HloTarget,
        &te::TeTarget,
        &tc::TcTarget,
        &layout::LayoutTarget,
    ]
}

/// The target called `name` (including `selftest`, which is not in `all`).
pub fn by_name(name: &str) -> Option<&'static dyn Target> {
    if name == "selftest" {
        return Some(&selftest::SelfTest);
    }
    all().into_iter().find(|t| t.name() == name)
}
