// Key takeaways (spec 2): three cards built on the client from keywords in an item's title and
// summary. The spec gives the stored resume as the purpose of the personalisation but not how
// it is used; Radar therefore derives the cards from the item alone and says so in the dialog.

export interface Takeaway {
  title: string;
  tags: string[];
  description: string;
}

export interface Takeaways {
  cards: Takeaway[];
  summary: string;
}

interface Theme extends Takeaway {
  pattern: RegExp;
}

const THEMES: Theme[] = [
  {
    pattern: /\b(ai|a\.i\.|artificial intelligence)\b/i,
    title: 'AI Adoption',
    tags: ['AI', 'Strategy'],
    description: 'Look at where this AI development could take repetitive work off your plate and sharpen decisions.',
  },
  {
    pattern: /\bmachine[- ]learning\b|\bml\b/i,
    title: 'Machine Learning in Practice',
    tags: ['Machine Learning', 'Data'],
    description: 'Check which of your processes produce the data a learning system would need to help.',
  },
  {
    pattern: /\bgenerative\b|\bgen ?ai\b/i,
    title: 'Generative AI Opportunities',
    tags: ['Generative AI', 'Content'],
    description: 'Consider how generated drafts, code or images could speed up the work you deliver.',
  },
  {
    pattern: /\bdigital\b|\btechnolog(y|ies|ical)\b/i,
    title: 'Digital Transformation',
    tags: ['Technology', 'Digital'],
    description: 'Think about which tools your team relies on that this shift could change.',
  },
  {
    pattern: /\bproducts?\b|\bdevelop(ment|ers?|ing)?\b/i,
    title: 'Product Development',
    tags: ['Product', 'Development'],
    description: 'Ask how this changes what users will expect from the products you build.',
  },
  {
    pattern: /\bbusiness(es)?\b|\benterprises?\b/i,
    title: 'Business Impact',
    tags: ['Business', 'Enterprise'],
    description: 'Weigh the cost, risk and advantage this could bring to your organisation.',
  },
];

const FALLBACKS: Takeaway[] = [
  {
    title: 'Stay Informed',
    tags: ['Industry', 'Trends'],
    description: 'Keep this development in mind as context for conversations in your field.',
  },
  {
    title: 'Skill Growth',
    tags: ['Learning', 'Career'],
    description: 'Note any skills this story suggests will matter more in the coming months.',
  },
  {
    title: 'Plan Ahead',
    tags: ['Planning', 'Strategy'],
    description: 'Decide whether this deserves a follow-up with your team or can simply be watched.',
  },
];

export function generateTakeaways(item: { title: string; summary?: string | null }): Takeaways {
  const text = `${item.title} ${item.summary ?? ''}`;
  const matched: Takeaway[] = THEMES.filter((theme) => theme.pattern.test(text)).map(({ title, tags, description }) => ({
    title,
    tags,
    description,
  }));
  const cards = [...matched, ...FALLBACKS].slice(0, 3);
  const focus = matched.length > 0 ? matched.slice(0, 3).map((c) => c.title.toLowerCase()) : ['general industry awareness'];
  const list = focus.length > 1 ? `${focus.slice(0, -1).join(', ')} and ${focus[focus.length - 1]}` : focus[0];
  return { cards, summary: `This story matters most for ${list}.` };
}
