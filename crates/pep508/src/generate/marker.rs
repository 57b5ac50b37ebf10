//! Markers printed from a generated syntax tree.

use arbitrary::{Result, Unstructured};

use super::{Options, chance, odd_string, parses_marker, pick, version_text};
use crate::{
    Dialect, Field, FieldType, MarkerExpression, MarkerOperator, MarkerTree, MarkerValue,
    ValueFormat, normalize_name,
};

/// PEP 345 spellings the grammar still accepts, with the field they name.
const ALIASES: &[(&str, Field)] = &[
    ("os.name", Field::OsName),
    ("sys.platform", Field::SysPlatform),
    ("platform.version", Field::PlatformVersion),
    ("platform.machine", Field::PlatformMachine),
    (
        "platform.python_implementation",
        Field::PlatformPythonImplementation,
    ),
    ("python_implementation", Field::PlatformPythonImplementation),
];

const OPERATORS: &[MarkerOperator] = &[
    MarkerOperator::Equal,
    MarkerOperator::NotEqual,
    MarkerOperator::LessThan,
    MarkerOperator::LessThanEqual,
    MarkerOperator::GreaterThan,
    MarkerOperator::GreaterThanEqual,
    MarkerOperator::TildeEqual,
    MarkerOperator::ExactEqual,
    MarkerOperator::In,
    MarkerOperator::NotIn,
];

/// One side of a comparison, as it will be printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Side {
    /// A variable, printed with `spelling` (canonical or an alias).
    Field {
        /// The field.
        field: Field,
        /// How it is written.
        spelling: &'static str,
    },
    /// A quoted string: its text (written between the quotes as is) and the quote.
    Literal {
        /// The text between the quotes.
        raw: String,
        /// `"` or `'`.
        quote: char,
    },
}

/// A marker syntax tree with the layout choices that printing needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// `lhs op rhs`.
    Expr(Side, MarkerOperator, Side),
    /// `a and b and …` (two or more).
    And(Vec<Node>),
    /// `a or b or …` (two or more).
    Or(Vec<Node>),
    /// `( inner )`, redundant or needed.
    Paren(Box<Node>),
}

/// A generated marker: the text, and what parsing it must give.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GeneratedMarker {
    /// The syntax tree.
    pub node: Node,
    /// The printed marker.
    pub text: String,
    /// The tree the text must parse to, when no literal holds a backslash, a line break or a
    /// NUL (whose escapes the generator does not model).
    pub expected: Option<MarkerTree>,
    /// Parsing must succeed in any dialect, profile and context (except the legacy `extra` in a
    /// lock file under `spec-2026`, SPEC Appendix E.5, which this flag does not model): every comparison is between
    /// one standard field (not the lock-file fields) and one literal, and the literals hold no
    /// backslash, line break or NUL. Always true for [`Options::valid`] output in the `pep508`
    /// dialect outside a lock file.
    pub must_parse: bool,
    /// Whether a comparison reads an extended-dialect field (so the `pep508` dialect must
    /// reject the text).
    pub uses_extended: bool,
    /// Every literal, as written, for environments to pick from so that comparisons match.
    pub literals: Vec<String>,
}

/// Whether the parser's `python_str` rules read `raw` exactly as written: no escapes, and no
/// character that makes the string invalid.
fn is_plain(raw: &str) -> bool {
    !raw.contains(['\\', '\n', '\r', '\0'])
}

/// A value of `field`'s format, from values real environments hold.
pub(crate) fn value_for(u: &mut Unstructured<'_>, field: Field) -> Result<String> {
    let fixed: &[&str] = match field.format() {
        ValueFormat::Version => return version_text(u, false),
        ValueFormat::Name => &["test", "cuda", "Dev_Tools", "docs", "a.b", "gpu"],
        ValueFormat::Arch => &["x86_64", "aarch64", "x86", "arm", "ppc64le", "AMD64"],
        ValueFormat::VariantLabel => &["cu128", "rocm6", "null", "x86_64_v3"],
        ValueFormat::VariantNamespace => &["nvidia", "x86_64", "amd"],
        ValueFormat::VariantFeature => &["nvidia :: sm_arch", "x86_64 :: level", "nvidia::cuda"],
        ValueFormat::VariantProperty => &[
            "nvidia :: cuda_version_lower_bound :: 12.8",
            "x86_64 :: level :: v3",
            "nvidia :: sm_arch :: 90_real",
        ],
        ValueFormat::AbiFeature => &["free-threading", "gil-enabled", "debug", "32-bit", "64-bit"],
        ValueFormat::GpuBackend => &["cuda", "rocm", "xpu", "metal"],
        ValueFormat::ComputeCapability => &["8.0", "8.9", "9.0", "7.5", "12.0"],
        ValueFormat::GfxTarget => &["gfx90a", "gfx1100", "gfx942"],
        _ => match field {
            Field::PythonVersion | Field::PythonFullVersion | Field::ImplementationVersion => {
                return version_text(u, false);
            }
            Field::PlatformRelease => &[
                "6.5.0-1025-azure",
                "5.15.167.4-microsoft-standard-WSL2",
                "23.1.0",
                "10",
            ],
            Field::OsName => &["posix", "nt", "java"],
            Field::SysPlatform => &["linux", "win32", "darwin", "cygwin", "emscripten"],
            Field::PlatformMachine => &["x86_64", "AMD64", "aarch64", "arm64", "i686", ""],
            Field::PlatformPythonImplementation => &["CPython", "PyPy", "Jython"],
            Field::PlatformSystem => &["Linux", "Windows", "Darwin", "Java"],
            Field::PlatformVersion => &[
                "#1 SMP PREEMPT_DYNAMIC",
                "10.0.19045",
                "Darwin Kernel Version 23.1.0",
            ],
            Field::ImplementationName => &["cpython", "pypy", "graalpy"],
            Field::PythonAbiTag => &["cp313t", "cp312", "pypy310_pp73"],
            Field::NvidiaDriverVersion => &["550.144.03", "535.104.05", "575"],
            _ => super::VOCABULARY,
        },
    };
    Ok((*pick(u, fixed)?).to_string())
}

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    options: &'a Options,
    uses_extended: bool,
    all_plain: bool,
    /// A comparison of two literals or two fields, or one of `extras`/`dependency_groups`.
    contested: bool,
    literals: Vec<String>,
    clauses: usize,
}

impl Gen<'_, '_> {
    fn quote_for(&mut self, raw: String) -> Result<Side> {
        let quote = if raw.contains('"') {
            '\''
        } else if raw.contains('\'') {
            '"'
        } else {
            *pick(self.u, &['"', '\''])?
        };
        // Text with both quotes cannot be written without escapes: drop one kind.
        let raw = if raw.contains('"') && raw.contains('\'') {
            raw.replace('\'', "")
        } else {
            raw
        };
        self.literals.push(raw.clone());
        Ok(Side::Literal { raw, quote })
    }

    fn odd_literal(&mut self) -> Result<Side> {
        let mut raw = odd_string(self.u)?;
        if !self.options.line_breaks {
            raw.retain(|c| !matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}'));
        }
        if !is_plain(&raw) {
            self.all_plain = false;
        }
        self.quote_for(raw)
    }

    fn field(&mut self) -> Result<Side> {
        let w = self.options.weights;
        let (field, spelling) = if chance(self.u, w.alias)? {
            let (alias, field) = *pick(self.u, ALIASES)?;
            (field, alias)
        } else if self.options.valid_only {
            let allowed: Vec<Field> = Field::ALL
                .iter()
                .copied()
                .filter(|f| {
                    (self.options.dialect == Dialect::Extended || !f.is_extended())
                        && (self.options.lock_file
                            || !matches!(f, Field::Extras | Field::DependencyGroups))
                })
                .collect();
            let field = *pick(self.u, &allowed)?;
            (field, field.name())
        } else {
            let field = *pick(self.u, Field::ALL)?;
            (field, field.name())
        };
        if field.is_extended() {
            self.uses_extended = true;
        }
        Ok(Side::Field { field, spelling })
    }

    /// A comparison of one field and one literal of its format.
    fn valid_expr(&mut self) -> Result<Node> {
        let Side::Field { field, spelling } = self.field()? else {
            return Err(arbitrary::Error::IncorrectFormat);
        };
        let lhs = Side::Field { field, spelling };
        if matches!(field, Field::Extras | Field::DependencyGroups) {
            self.contested = true;
        }
        let value = value_for(self.u, field)?;
        let rhs = self.quote_for(value)?;
        let set = field.field_type() == FieldType::Set;
        let in_op = *pick(self.u, &[MarkerOperator::In, MarkerOperator::NotIn])?;
        if set || chance(self.u, self.options.weights.literal_first)? {
            let op = if set {
                in_op
            } else {
                *pick(self.u, OPERATORS)?
            };
            return Ok(Node::Expr(rhs, op, lhs));
        }
        let op = match field.field_type() {
            FieldType::Extra => *pick(self.u, &[MarkerOperator::Equal, MarkerOperator::NotEqual])?,
            _ => *pick(self.u, OPERATORS)?,
        };
        Ok(Node::Expr(lhs, op, rhs))
    }

    fn expr(&mut self) -> Result<Node> {
        self.clauses += 1;
        if self.options.valid_only {
            return self.valid_expr();
        }
        // Mostly `field OP "literal"` and `"literal" in field`, sometimes the odd shapes.
        let shape = self.u.int_in_range(0u8..=9)?;
        let (lhs_lit, rhs_lit) = match shape {
            0..=5 => (false, true),
            6 | 7 => (true, false),
            8 => (true, true),
            _ => (false, false),
        };
        let lhs = if lhs_lit {
            self.literal()?
        } else {
            self.field()?
        };
        let op = if shape == 6 || shape == 7 {
            *pick(
                self.u,
                &[
                    MarkerOperator::In,
                    MarkerOperator::NotIn,
                    MarkerOperator::Equal,
                    MarkerOperator::In,
                ],
            )?
        } else {
            *pick(self.u, OPERATORS)?
        };
        let rhs = if rhs_lit {
            self.literal()?
        } else {
            self.field()?
        };
        let lock_file_field = [&lhs, &rhs].iter().any(|s| {
            matches!(
                s,
                Side::Field {
                    field: Field::Extras | Field::DependencyGroups,
                    ..
                }
            )
        });
        if lhs_lit == rhs_lit || lock_file_field {
            self.contested = true;
        }
        Ok(Node::Expr(lhs, op, rhs))
    }

    fn literal(&mut self) -> Result<Side> {
        if chance(self.u, self.options.weights.odd_literals)? {
            self.odd_literal()
        } else if self.u.ratio(1, 2)? {
            let raw = version_text(self.u, true)?;
            self.quote_for(raw)
        } else {
            let raw = (*pick(self.u, super::VOCABULARY)?).to_string();
            self.quote_for(raw)
        }
    }

    fn node(&mut self, depth: u32) -> Result<Node> {
        if depth == 0 || self.u.is_empty() || self.clauses > 64 {
            return self.expr();
        }
        if chance(self.u, self.options.weights.parentheses)? {
            return Ok(Node::Paren(Box::new(self.node(depth - 1)?)));
        }
        match self.u.int_in_range(0u8..=5)? {
            0..=2 => self.expr(),
            _ => {
                let n = self.u.int_in_range(2..=4)?;
                let children = (0..n)
                    .map(|_| self.node(depth - 1))
                    .collect::<Result<Vec<_>>>()?;
                Ok(if self.u.arbitrary()? {
                    Node::And(children)
                } else {
                    Node::Or(children)
                })
            }
        }
    }
}

/// Generates a marker, prints it, and works out the tree it must parse to.
///
/// With [`Options::valid_only`], the text parses under the `spec-2026` and `packaging`
/// profiles in the options' dialect and context (a draw that would not is drawn again, and
/// after sixteen tries a fixed marker is returned).
///
/// # Errors
/// Only what [`Unstructured`] reports; running out of bytes is not an error (the generator
/// then takes the first choice everywhere).
pub fn marker(u: &mut Unstructured<'_>, options: &Options) -> Result<GeneratedMarker> {
    for _ in 0..16 {
        let case = draw(u, options)?;
        if !options.valid_only || parses_marker(&case.text, options) {
            return Ok(case);
        }
    }
    let node = Node::Expr(
        Side::Field {
            field: Field::PythonVersion,
            spelling: "python_version",
        },
        MarkerOperator::GreaterThanEqual,
        Side::Literal {
            raw: "3.8".into(),
            quote: '"',
        },
    );
    Ok(GeneratedMarker {
        expected: Some(expected_tree(&node)),
        text: "python_version >= \"3.8\"".into(),
        node,
        must_parse: true,
        uses_extended: false,
        literals: vec!["3.8".into()],
    })
}

fn draw(u: &mut Unstructured<'_>, options: &Options) -> Result<GeneratedMarker> {
    let depth = u.int_in_range(0..=options.weights.max_depth)?;
    let mut g = Gen {
        u,
        options,
        uses_extended: false,
        all_plain: true,
        contested: false,
        literals: Vec::new(),
        clauses: 0,
    };
    let node = g.node(depth)?;
    let mut text = String::new();
    let mut p = Printer {
        u: g.u,
        out: &mut text,
    };
    p.leading_ws()?;
    p.node(&node, false)?;
    p.trailing_ws()?;
    let expected = g.all_plain.then(|| expected_tree(&node));
    Ok(GeneratedMarker {
        must_parse: !g.uses_extended && g.all_plain && !g.contested,
        uses_extended: g.uses_extended,
        node,
        text,
        expected,
        literals: g.literals,
    })
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

struct Printer<'a, 'b, 'c> {
    u: &'a mut Unstructured<'b>,
    out: &'c mut String,
}

impl Printer<'_, '_, '_> {
    /// Writes `wsp*` (spaces and tabs) before `next`, at least one where two words would
    /// otherwise run together.
    fn gap(&mut self, next: char) -> Result<()> {
        let needed = self.out.chars().last().is_some_and(is_word_char) && is_word_char(next);
        let n = match self.u.int_in_range(0u8..=3)? {
            0 | 1 => 1,
            2 => 0,
            _ => 2,
        };
        let n = if needed { n.max(1) } else { n };
        for _ in 0..n {
            self.out.push(if self.u.ratio(1, 6)? { '\t' } else { ' ' });
        }
        Ok(())
    }

    fn leading_ws(&mut self) -> Result<()> {
        if self.u.ratio(1, 8)? {
            self.out.push(' ');
        }
        Ok(())
    }

    fn trailing_ws(&mut self) -> Result<()> {
        if self.u.ratio(1, 8)? {
            self.out.push('\t');
        }
        Ok(())
    }

    fn side(&mut self, side: &Side) {
        match side {
            Side::Field { spelling, .. } => self.out.push_str(spelling),
            Side::Literal { raw, quote } => {
                self.out.push(*quote);
                self.out.push_str(raw);
                self.out.push(*quote);
            }
        }
    }

    fn first_char(node: &Node) -> char {
        match node {
            Node::Expr(Side::Field { spelling, .. }, _, _) => {
                spelling.chars().next().unwrap_or('x')
            }
            Node::Expr(Side::Literal { quote, .. }, _, _) => *quote,
            Node::And(c) | Node::Or(c) => c.first().map_or('(', Self::first_char),
            Node::Paren(_) => '(',
        }
    }

    fn node(&mut self, node: &Node, in_and: bool) -> Result<()> {
        match node {
            Node::Expr(lhs, op, rhs) => {
                self.side(lhs);
                let op_text = op.as_str();
                self.gap(op_text.chars().next().unwrap_or('='))?;
                if *op == MarkerOperator::NotIn {
                    self.out.push_str("not");
                    let n = self.u.int_in_range(1u8..=2)?;
                    for _ in 0..n {
                        self.out.push(' ');
                    }
                    self.out.push_str("in");
                } else {
                    self.out.push_str(op_text);
                }
                let next = match rhs {
                    Side::Field { spelling, .. } => spelling.chars().next().unwrap_or('x'),
                    Side::Literal { quote, .. } => *quote,
                };
                self.gap(next)?;
                self.side(rhs);
            }
            Node::And(children) | Node::Or(children) => {
                let is_or = matches!(node, Node::Or(_));
                let wrap = is_or && in_and;
                if wrap {
                    self.out.push('(');
                }
                for (i, c) in children.iter().enumerate() {
                    if i > 0 {
                        self.gap('a')?;
                        self.out.push_str(if is_or { "or" } else { "and" });
                        self.gap(Self::first_char(c))?;
                    }
                    self.node(c, !is_or)?;
                }
                if wrap {
                    self.out.push(')');
                }
            }
            Node::Paren(inner) => {
                self.out.push('(');
                if self.u.ratio(1, 4)? {
                    self.out.push(' ');
                }
                self.node(inner, false)?;
                if self.u.ratio(1, 4)? {
                    self.out.push('\t');
                }
                self.out.push(')');
            }
        }
        Ok(())
    }
}

fn value(side: &Side) -> MarkerValue {
    match side {
        Side::Field { field, .. } => MarkerValue::Field(*field),
        Side::Literal { raw, .. } => MarkerValue::Literal(raw.as_str().into()),
    }
}

/// The tree a printed syntax tree must parse to: flat `and`/`or`, no trace of parentheses,
/// and names compared with `extra`, `extras` or `dependency_groups` normalised (PEP 685, 735).
pub fn expected_tree(node: &Node) -> MarkerTree {
    match node {
        Node::Expr(lhs, op, rhs) => {
            let (mut l, mut r) = (value(lhs), value(rhs));
            match (&mut l, &mut r) {
                (
                    MarkerValue::Literal(s),
                    MarkerValue::Field(Field::Extra | Field::Extras | Field::DependencyGroups),
                )
                | (MarkerValue::Field(Field::Extra), MarkerValue::Literal(s)) => {
                    *s = normalize_name(s).into();
                }
                _ => {}
            }
            MarkerTree::from(MarkerExpression::new(l, *op, r))
        }
        Node::And(children) => fold(children, MarkerTree::and),
        Node::Or(children) => fold(children, MarkerTree::or),
        Node::Paren(inner) => expected_tree(inner),
    }
}

fn fold(children: &[Node], join: fn(MarkerTree, MarkerTree) -> MarkerTree) -> MarkerTree {
    let mut it = children.iter().map(expected_tree);
    match it.next() {
        Some(first) => it.fold(first, join),
        None => MarkerTree::TRUE,
    }
}
