export interface WeeklySummary {
  id: string;
  title: string;
  summary: string;
  content: string[];
  start_date: string;
  end_date: string;
  generated_date: string;
  article_count: number;
}

export const DEFAULT_SUMMARY_TITLE = 'Weekly AI News Summary';
