//! Call arguments with their spans, and their hand-over to [`tvm_api`].

use crate::error::{Eval, Raised};
use crate::value::Value;
use std::ops::Range;
use tvm_api::{ApiError, ArgRef};

/// A value with the span of the expression that produced it.
#[derive(Clone)]
pub(crate) struct Spanned {
    pub value: Value,
    pub span: Range<usize>,
}

/// The evaluated arguments of one call.
pub(crate) struct Args {
    pub positional: Vec<Spanned>,
    pub keywords: Vec<(String, Spanned)>,
    /// The whole call expression.
    pub span: Range<usize>,
}

/// Where the arguments of a call handed to [`tvm_api`] were written, to
/// place its errors.
pub(crate) struct ArgSpans {
    positional: Vec<Range<usize>>,
    keywords: Vec<(String, Range<usize>)>,
    /// The whole call expression.
    pub call: Range<usize>,
}

impl ArgSpans {
    /// The span an error about `arg` points at: the argument, or the whole
    /// call.
    pub fn of(&self, arg: Option<&ArgRef>) -> Range<usize> {
        let found = match arg {
            Some(ArgRef::Positional(i)) => self.positional.get(*i),
            Some(ArgRef::Keyword(name)) => self
                .keywords
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, span)| span),
            None => None,
        };
        found.unwrap_or(&self.call).clone()
    }

    /// The API's error `e` as a script error.
    pub fn raise(&self, e: ApiError) -> Raised {
        Raised::api(self.of(e.arg.as_ref()), e)
    }
}

impl Args {
    /// The arguments as [`tvm_api`] takes them, and their spans.
    pub fn into_api(self) -> (tvm_api::Args, ArgSpans) {
        let mut positional = Vec::with_capacity(self.positional.len());
        let mut positional_spans = Vec::with_capacity(self.positional.len());
        for a in self.positional {
            positional.push(a.value);
            positional_spans.push(a.span);
        }
        let mut keywords = Vec::with_capacity(self.keywords.len());
        let mut keyword_spans = Vec::with_capacity(self.keywords.len());
        for (name, a) in self.keywords {
            keyword_spans.push((name.clone(), a.span));
            keywords.push((name, a.value));
        }
        (
            tvm_api::Args {
                positional,
                keywords,
            },
            ArgSpans {
                positional: positional_spans,
                keywords: keyword_spans,
                call: self.span,
            },
        )
    }

    /// Rejects keyword arguments, for functions that take positionals only.
    pub fn positional_only(self, function: &str) -> Eval<(Vec<Spanned>, Range<usize>)> {
        if let Some((name, arg)) = self.keywords.into_iter().next() {
            return Err(Raised::at(
                arg.span,
                format!("`{function}` takes no keyword argument `{name}`"),
            ));
        }
        Ok((self.positional, self.span))
    }
}
