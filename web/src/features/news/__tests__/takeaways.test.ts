import { describe, expect, it } from 'vitest';
import { generateTakeaways } from '@/features/news/takeaways';

describe('generateTakeaways', () => {
  it('always gives three cards with title, tags and description', () => {
    const { cards, summary } = generateTakeaways({ title: 'Weather today', summary: 'Sunny' });
    expect(cards).toHaveLength(3);
    for (const card of cards) {
      expect(card.title).not.toBe('');
      expect(card.tags.length).toBeGreaterThan(0);
      expect(card.description).not.toBe('');
    }
    expect(summary).toContain('general industry awareness');
  });

  it.each([
    ['New AI chip ships', 'AI Adoption'],
    ['Machine learning at scale', 'Machine Learning in Practice'],
    ['Generative models write code', 'Generative AI Opportunities'],
    ['Digital health grows', 'Digital Transformation'],
    ['Technology stocks rally', 'Digital Transformation'],
    ['Product launch of the year', 'Product Development'],
    ['Developers get new tools', 'Product Development'],
    ['Enterprise buyers wait', 'Business Impact'],
    ['Business as usual', 'Business Impact'],
  ])('"%s" leads with %s', (title, first) => {
    expect(generateTakeaways({ title }).cards[0].title).toBe(first);
  });

  it('looks at the summary too and keeps theme order', () => {
    const { cards, summary } = generateTakeaways({
      title: 'Enterprise update',
      summary: 'A generative AI product for business',
    });
    expect(cards.map((c) => c.title)).toEqual(['AI Adoption', 'Generative AI Opportunities', 'Product Development']);
    expect(summary).toBe('This story matters most for ai adoption, generative ai opportunities and product development.');
  });

  it('does not take "ai" out of other words', () => {
    expect(generateTakeaways({ title: 'Rain in Spain' }).cards[0].title).toBe('Stay Informed');
  });
});
