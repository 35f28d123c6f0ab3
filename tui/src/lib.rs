//! Radar's terminal reader (work in progress): Feed, Drops and TV mode in the terminal.
