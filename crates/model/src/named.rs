//! Enums whose variants are written once. `ALL` (every listed variant, in declaration order,
//! so `v as usize` is its place) and the stable text of each (`name()` or the name given)
//! come from that one list, so neither can drift from the enum: a variant added is in both.

/// `named_enum! { #[derive(..)] pub enum Kind (name) { A => "a", B => "b", } }` declares the
/// enum, `Kind::ALL: [Kind; 2]`, `Kind::name(self) -> &'static str` and
/// `Kind::from_name(&str) -> Option<Kind>` (the text method is called whatever is in the
/// parentheses; `from_` + it is the reverse). Variants after `hidden` are part of the enum
/// and have a name but are left out of `ALL` (a test-only workload).
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($text_fn:ident, $from_fn:ident) {
            $( $(#[$vmeta:meta])* $variant:ident => $text:literal, )+
        }
        $( hidden { $( $(#[$hmeta:meta])* $hidden:ident => $htext:literal, )+ } )?
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
            $( $( $(#[$hmeta])* $hidden, )+ )?
        }

        impl $name {
            /// Every variant (but hidden ones), in declaration order.
            pub const ALL: [$name; [$(stringify!($variant)),+].len()] = [$($name::$variant),+];

            /// The variant's stable text (JSON keys, command-line values).
            #[must_use]
            pub fn $text_fn(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                    $( $( $name::$hidden => $htext, )+ )?
                }
            }

            /// The listed variant with this text. (A private enum may never need it.)
            #[must_use]
            #[allow(dead_code)]
            pub fn $from_fn(text: &str) -> Option<$name> {
                $name::ALL.into_iter().find(|v| v.$text_fn() == text)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    named_enum! {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum Fruit (name, from_name) {
            Apple => "apple",
            Pear => "pear",
        }
        hidden {
            Wax => "wax",
        }
    }

    #[test]
    fn all_lists_the_variants_in_order_and_names_go_both_ways() {
        assert_eq!(Fruit::ALL, [Fruit::Apple, Fruit::Pear]);
        for (i, f) in Fruit::ALL.into_iter().enumerate() {
            assert_eq!(f as usize, i);
            assert_eq!(Fruit::from_name(f.name()), Some(f));
        }
        assert_eq!(Fruit::Wax.name(), "wax");
        assert_eq!(
            Fruit::from_name("wax"),
            None,
            "a hidden variant is not a choice"
        );
        assert_eq!(Fruit::from_name("plum"), None);
    }
}
