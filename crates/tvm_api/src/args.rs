//! Call arguments and binding them to a function's parameters by TVM's
//! signatures.

use crate::error::{ApiError, ApiResult, ArgRef, ErrorClass};
use crate::value::Value;

/// The arguments of one call, as the caller wrote them (after `*`
/// unpacking): positionals in order, then keywords in order.
#[derive(Clone, Default)]
pub struct Args {
    /// The positional arguments.
    pub positional: Vec<Value>,
    /// The keyword arguments, by name.
    pub keywords: Vec<(String, Value)>,
}

/// One argument with where it came from.
#[derive(Clone)]
pub struct Given {
    /// The argument's value.
    pub value: Value,
    /// Which argument it was, for errors.
    pub at: ArgRef,
}

impl Given {
    /// Where errors about this argument point.
    pub(crate) fn place(&self) -> crate::error::At {
        Some(self.at.clone())
    }

    /// A value that stands where argument `at` was written (an item of a
    /// shape tuple): its errors point at that argument.
    pub fn item(&self, value: Value) -> Given {
        Given {
            value,
            at: self.at.clone(),
        }
    }
}

impl Args {
    /// Positional arguments only.
    pub fn positional(values: Vec<Value>) -> Args {
        Args {
            positional: values,
            keywords: Vec::new(),
        }
    }

    /// Matches the arguments to the parameters `params` of `function`, in
    /// Python's way: positionals first, then keywords by name.
    pub fn bind(self, function: &str, params: &[&'static str]) -> ApiResult<Bound> {
        if self.positional.len() > params.len() {
            return Err(ApiError::type_error(format!(
                "`{function}` takes at most {} positional arguments ({})",
                params.len(),
                params.join(", ")
            ))
            .at(ArgRef::Positional(params.len())));
        }
        let mut slots: Vec<Option<Given>> = vec![None; params.len()];
        for (i, (slot, value)) in slots.iter_mut().zip(self.positional).enumerate() {
            *slot = Some(Given {
                value,
                at: ArgRef::Positional(i),
            });
        }
        for (name, value) in self.keywords {
            let Some(i) = params.iter().position(|p| *p == name) else {
                return Err(ApiError::type_error(format!(
                    "`{function}` has no parameter `{name}`; its parameters are {}",
                    params.join(", ")
                ))
                .at(ArgRef::Keyword(name)));
            };
            if slots[i].is_some() {
                return Err(ApiError::type_error(format!(
                    "`{function}` got two values for `{name}`"
                ))
                .at(ArgRef::Keyword(name)));
            }
            slots[i] = Some(Given {
                value,
                at: ArgRef::Keyword(name),
            });
        }
        Ok(Bound {
            function: function.to_owned(),
            params: params.to_vec(),
            slots,
        })
    }

    /// The positional arguments, rejecting keywords, for functions that take
    /// positionals only.
    pub fn positional_only(self, function: &str) -> ApiResult<Vec<Given>> {
        if let Some((name, _)) = self.keywords.into_iter().next() {
            return Err(ApiError::type_error(format!(
                "`{function}` takes no keyword argument `{name}`"
            ))
            .at(ArgRef::Keyword(name)));
        }
        Ok(self
            .positional
            .into_iter()
            .enumerate()
            .map(|(i, value)| Given {
                value,
                at: ArgRef::Positional(i),
            })
            .collect())
    }
}

/// Arguments matched to parameters by name.
pub struct Bound {
    function: String,
    params: Vec<&'static str>,
    slots: Vec<Option<Given>>,
}

impl Bound {
    /// Where errors about the call as a whole point: nowhere in particular.
    pub(crate) fn place(&self) -> crate::error::At {
        None
    }

    /// The argument for `param`, if given.
    pub fn get(&self, param: &str) -> Option<&Given> {
        let i = self.index(param);
        self.slots[i].as_ref()
    }

    /// The argument for `param`, or an error (about the whole call) saying
    /// it is missing.
    pub fn required(&self, param: &str) -> ApiResult<&Given> {
        self.get(param).ok_or_else(|| {
            ApiError::new(
                ErrorClass::TypeError,
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

/// A string argument.
pub(crate) fn string(a: &Given) -> ApiResult<String> {
    match &a.value {
        Value::Str(s) => Ok(s.to_string()),
        other => Err(crate::error::type_error(
            a.place(),
            format!("expected a string, found a {}", other.type_name()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(positional: Vec<i64>, keywords: Vec<(&str, i64)>) -> Args {
        Args {
            positional: positional.into_iter().map(Value::Int).collect(),
            keywords: keywords
                .into_iter()
                .map(|(k, v)| (k.to_owned(), Value::Int(v)))
                .collect(),
        }
    }

    #[test]
    fn positionals_then_keywords_fill_the_parameters() {
        let b = args(vec![1], vec![("c", 3)])
            .bind("f", &["a", "b", "c"])
            .unwrap();
        assert!(matches!(b.get("a").map(|g| &g.value), Some(Value::Int(1))));
        assert!(b.get("b").is_none());
        let c = b.get("c").unwrap();
        assert!(matches!(c.value, Value::Int(3)));
        assert_eq!(c.at, ArgRef::Keyword("c".into()));
        assert_eq!(b.get("a").unwrap().at, ArgRef::Positional(0));
    }

    #[test]
    fn binding_errors_name_the_argument() {
        let Err(e) = args(vec![1, 2, 3], vec![]).bind("f", &["a", "b"]) else {
            panic!("too many positionals accepted");
        };
        assert_eq!(e.arg, Some(ArgRef::Positional(2)));
        assert_eq!(e.class, ErrorClass::TypeError);
        assert_eq!(e.message, "`f` takes at most 2 positional arguments (a, b)");

        let Err(e) = args(vec![], vec![("z", 1)]).bind("f", &["a"]) else {
            panic!("unknown keyword accepted");
        };
        assert_eq!(e.arg, Some(ArgRef::Keyword("z".into())));
        assert_eq!(e.message, "`f` has no parameter `z`; its parameters are a");

        let Err(e) = args(vec![1], vec![("a", 2)]).bind("f", &["a"]) else {
            panic!("two values accepted");
        };
        assert_eq!(e.message, "`f` got two values for `a`");
        assert_eq!(e.arg, Some(ArgRef::Keyword("a".into())));

        let b = args(vec![], vec![]).bind("f", &["a"]).unwrap();
        let Err(e) = b.required("a") else {
            panic!("missing argument accepted");
        };
        assert_eq!(e.message, "`f` needs the argument `a`");
        assert_eq!(e.arg, None);

        let Err(e) = args(vec![1], vec![("k", 2)]).positional_only("g") else {
            panic!("keyword accepted");
        };
        assert_eq!(e.message, "`g` takes no keyword argument `k`");
        assert_eq!(e.arg, Some(ArgRef::Keyword("k".into())));
    }
}
