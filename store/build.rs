//! Lists the PostgreSQL migrations (`src/engines/postgres/migrations/NNNN_name.sql`) for
//! `engines/postgres/schema.rs`, so a migration is one new file: none can be added and
//! forgotten in a hand-kept list. Their numbers must run from 1 without a gap.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new("src/engines/postgres/migrations");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut found: Vec<(i32, String)> = std::fs::read_dir(dir)
        .expect("the migrations directory")
        .map(|entry| entry.expect("a migration file").path())
        .filter(|path| path.extension().is_some_and(|e| e == "sql"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let number = name
                .split('_')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("migration {name} does not start with its number"));
            (number, name)
        })
        .collect();
    found.sort();
    let mut list = String::from("&[\n");
    for (i, (number, name)) in found.iter().enumerate() {
        let expected = i32::try_from(i + 1).expect("fewer than 2^31 migrations");
        assert_eq!(
            *number, expected,
            "migration {name}: the migrations are numbered 1, 2, 3… without a gap"
        );
        let path = std::fs::canonicalize(dir.join(name)).expect("the migration's path");
        writeln!(
            list,
            "    ({number}, include_str!({:?})),",
            path.display().to_string()
        )
        .expect("a string takes writes");
    }
    list.push(']');
    let out =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("migrations.rs");
    std::fs::write(out, list).expect("the migrations list written");
}
