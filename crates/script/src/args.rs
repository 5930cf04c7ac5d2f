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

    /// Matches the arguments to the parameters `params` of `function`, in
    /// Python's way: positionals first, then keywords by name.
    pub fn bind(self, function: &str, params: &[&'static str]) -> Eval<Bound> {
        if self.positional.len() > params.len() {
            let extra = &self.positional[params.len()];
            return Err(Raised::at(
                extra.span.clone(),
                format!(
                    "`{function}` takes at most {} positional arguments ({})",
                    params.len(),
                    params.join(", ")
                ),
            ));
        }
        let mut slots: Vec<Option<Spanned>> = vec![None; params.len()];
        for (slot, arg) in slots.iter_mut().zip(self.positional) {
            *slot = Some(arg);
        }
        for (name, arg) in self.keywords {
            let Some(i) = params.iter().position(|p| *p == name) else {
                return Err(Raised::at(
                    arg.span,
                    format!(
                        "`{function}` has no parameter `{name}`; its parameters are {}",
                        params.join(", ")
                    ),
                ));
            };
            if slots[i].is_some() {
                return Err(Raised::at(
                    arg.span,
                    format!("`{function}` got two values for `{name}`"),
                ));
            }
            slots[i] = Some(arg);
        }
        Ok(Bound {
            function: function.to_owned(),
            params: params.to_vec(),
            slots,
            span: self.span,
        })
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

/// Arguments matched to parameters by name.
pub(crate) struct Bound {
    function: String,
    params: Vec<&'static str>,
    slots: Vec<Option<Spanned>>,
    pub span: Range<usize>,
}

impl Bound {
    /// The argument for `param`, if given.
    pub fn get(&self, param: &str) -> Option<&Spanned> {
        let i = self.index(param);
        self.slots[i].as_ref()
    }

    /// The argument for `param`, or an error saying it is missing.
    pub fn required(&self, param: &str) -> Eval<&Spanned> {
        self.get(param).ok_or_else(|| {
            Raised::at(
                self.span.clone(),
                format!("`{}` needs the argument `{param}`", self.function),
            )
        })
    }

    fn index(&self, param: &str) -> usize {
        // Parameter names are literals of the callers; a miss is a bug here.
        self.params
            .iter()
            .position(|p| *p == param)
            .expect("parameter declared in bind")
    }
}
