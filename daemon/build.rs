//! The web app is embedded from `web/dist`. A checkout that has not built the front end
//! yet still compiles: it gets a placeholder page that says how to build the real one.

use std::path::Path;

fn main() {
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/dist");
    println!("cargo:rerun-if-changed={}", dist.display());
    if !dist.join("index.html").exists() {
        std::fs::create_dir_all(&dist).expect("create web/dist");
        std::fs::write(
            dist.join("index.html"),
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Radar</title></head>\
             <body><h1>Radar</h1><p>The web app is not built yet: run <code>make run</code> \
             (or <code>npm --prefix web ci &amp;&amp; npm --prefix web run build</code>) and rebuild.</p></body></html>\n",
        )
        .expect("write placeholder web/dist/index.html");
    }
}
