/** docs/product.md §3: a weekly summary without a title of its own shows this one. */
export const DEFAULT_SUMMARY_TITLE = 'Weekly AI News Summary';
