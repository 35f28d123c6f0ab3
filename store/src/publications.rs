//! The names of well-known publications, by the domain they publish from: a reader
//! expects "The Verge" and "Hugging Face", not "Theverge" and "Huggingface", which is all
//! the host rule of docs/product.md §3 can make of their addresses.
//!
//! An item's source is, in order: the name its feed gives itself (for items that came
//! from a feed), this table, then the host rule ([`crate::display::source_name`]). Add a
//! publication here when its host reads wrongly; keep the list sorted by domain.

/// `(domain, name)`, sorted by domain. A domain also covers its subdomains, unless a
/// subdomain has an entry of its own (`spectrum.ieee.org` is not `ieee.org`).
const PUBLICATIONS: &[(&str, &str)] = &[
    ("aboutamazon.com", "Amazon"),
    ("ai.meta.com", "Meta AI"),
    ("aisi.gov.uk", "AI Security Institute"),
    ("allenai.org", "Ai2"),
    ("anthropic.com", "Anthropic"),
    ("apple.com", "Apple"),
    ("arstechnica.com", "Ars Technica"),
    ("arxiv.org", "arXiv"),
    ("axios.com", "Axios"),
    ("bbc.co.uk", "BBC"),
    ("bbc.com", "BBC"),
    ("blog.google", "Google"),
    ("blog.modelcontextprotocol.io", "Model Context Protocol"),
    ("blogs.microsoft.com", "Microsoft"),
    ("bloomberg.com", "Bloomberg"),
    ("businessinsider.com", "Business Insider"),
    ("cio.com", "CIO"),
    ("cnbc.com", "CNBC"),
    ("cnn.com", "CNN"),
    ("cohere.com", "Cohere"),
    ("deepmind.google", "Google DeepMind"),
    ("economist.com", "The Economist"),
    ("eetimes.com", "EE Times"),
    ("endpts.com", "Endpoints News"),
    ("engadget.com", "Engadget"),
    ("euractiv.com", "Euractiv"),
    ("forbes.com", "Forbes"),
    ("fortune.com", "Fortune"),
    ("ft.com", "Financial Times"),
    ("github.blog", "The GitHub Blog"),
    ("github.com", "GitHub"),
    ("huggingface.co", "Hugging Face"),
    ("ieee.org", "IEEE"),
    ("infoq.com", "InfoQ"),
    ("insurancejournal.com", "Insurance Journal"),
    ("japantimes.co.jp", "The Japan Times"),
    ("latimes.com", "Los Angeles Times"),
    ("medtechdive.com", "MedTech Dive"),
    ("microsoft.com", "Microsoft"),
    ("mistral.ai", "Mistral AI"),
    ("nature.com", "Nature"),
    ("news.ycombinator.com", "Hacker News"),
    ("nikkei.com", "Nikkei Asia"),
    ("nvidia.com", "NVIDIA"),
    ("nytimes.com", "The New York Times"),
    ("openai.com", "OpenAI"),
    ("politico.eu", "Politico Europe"),
    ("press.siemens.com", "Siemens"),
    ("pytorch.org", "PyTorch"),
    ("qwenlm.github.io", "Qwen"),
    ("reuters.com", "Reuters"),
    ("science.org", "Science"),
    ("semafor.com", "Semafor"),
    ("spectrum.ieee.org", "IEEE Spectrum"),
    ("stackoverflow.blog", "Stack Overflow Blog"),
    ("statnews.com", "STAT"),
    ("techcrunch.com", "TechCrunch"),
    ("technologyreview.com", "MIT Technology Review"),
    ("theatlantic.com", "The Atlantic"),
    ("theguardian.com", "The Guardian"),
    ("theinformation.com", "The Information"),
    ("theregister.com", "The Register"),
    ("therobotreport.com", "The Robot Report"),
    ("theverge.com", "The Verge"),
    ("venturebeat.com", "VentureBeat"),
    ("washingtonpost.com", "The Washington Post"),
    ("wired.com", "Wired"),
    ("wsj.com", "The Wall Street Journal"),
    ("zdnet.com", "ZDNET"),
];

/// The publication behind a host (lower case, as URLs carry it), when the table knows
/// it: the host itself, else its closest parent domain in the table.
pub(crate) fn known(host: &str) -> Option<&'static str> {
    let mut domain = host.trim_end_matches('.');
    loop {
        if let Ok(at) = PUBLICATIONS.binary_search_by(|(d, _)| (*d).cmp(domain)) {
            return Some(PUBLICATIONS[at].1);
        }
        domain = domain.split_once('.')?.1;
        // A bare top-level domain is never a publication.
        if !domain.contains('.') {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_each_domain_is_there_once() {
        for pair in PUBLICATIONS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{:?} before {:?}", pair[0], pair[1]);
        }
    }

    #[test]
    fn hosts_find_their_publication_or_their_closest_parents() {
        assert_eq!(known("www.theverge.com"), Some("The Verge"));
        assert_eq!(known("theverge.com"), Some("The Verge"));
        assert_eq!(known("spectrum.ieee.org"), Some("IEEE Spectrum"));
        assert_eq!(known("standards.ieee.org"), Some("IEEE"));
        assert_eq!(known("asia.nikkei.com"), Some("Nikkei Asia"));
        assert_eq!(known("huggingface.co"), Some("Hugging Face"));
        assert_eq!(known("www.ft.com."), Some("Financial Times"));
        assert_eq!(known("ft.com.evil.example"), None);
        assert_eq!(known("example.com"), None);
        assert_eq!(known("com"), None);
        assert_eq!(known(""), None);
    }
}
