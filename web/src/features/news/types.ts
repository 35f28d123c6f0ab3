export interface NewsItem {
  id: string;
  title: string;
  summary: string;
  short: string;
  content: string;
  url: string | null;
  published_date: string;
  source: string | null;
}

export interface SharedItem extends NewsItem {
  sharedAt: string;
  platform: string;
}

export interface NewsPage {
  items: NewsItem[];
  nextCursor: string | null;
  hasMore: boolean;
  limit: number;
}

export interface SetChangeResult {
  success: boolean;
  clientSideOnly?: boolean;
}
