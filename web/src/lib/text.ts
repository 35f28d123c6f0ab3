// Display helpers shared by every view that shows a news item.

/** Removes bracketed numeric citation markers such as "[1]" or "[12]" and the space before them. */
export function stripCitations(text: string | null | undefined): string {
  if (!text) return '';
  return text.replace(/\s*\[\d+\]/g, '').trim();
}

/**
 * A readable source name from a URL's host: its second-level domain, capitalised
 * (https://www.theverge.com/x → "Theverge"). Hosts under two-letter country suffixes such as
 * bbc.co.uk take the label before "co". Returns null when the URL cannot be parsed.
 */
export function sourceName(url: string | null | undefined): string | null {
  if (!url) return null;
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null;
  }
  const labels = host.split('.').filter(Boolean);
  if (labels.length === 0) return null;
  let index = labels.length >= 2 ? labels.length - 2 : 0;
  const secondLevel = ['co', 'com', 'org', 'net', 'ac', 'gov', 'edu'];
  if (labels.length >= 3 && labels[labels.length - 1].length === 2 && secondLevel.includes(labels[index])) index -= 1;
  const name = labels[index];
  return name.charAt(0).toUpperCase() + name.slice(1);
}
