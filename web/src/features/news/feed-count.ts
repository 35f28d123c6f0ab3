// How many feed items show (spec 4 and 9): 5 for free users; 20 for subscribers plus 20 for
// every Read More click.
export const FREE_FEED_LIMIT = 5;
export const SUBSCRIBER_FEED_LIMIT = 20;
export const READ_MORE_STEP = 20;

export function feedVisibleCount(subscriber: boolean, readMoreClicks: number): number {
  if (!subscriber) return FREE_FEED_LIMIT;
  return SUBSCRIBER_FEED_LIMIT + READ_MORE_STEP * Math.max(0, readMoreClicks);
}

export type FeedFooter = 'read-more' | 'subscribe' | 'none';

/** Which button closes the feed: Read More for subscribers, Subscribe Now for the others, while more remain. */
export function feedFooter(subscriber: boolean, shown: number, available: number, serverHasMore: boolean): FeedFooter {
  const moreRemain = available > shown || serverHasMore;
  if (!moreRemain) return 'none';
  return subscriber ? 'read-more' : 'subscribe';
}
