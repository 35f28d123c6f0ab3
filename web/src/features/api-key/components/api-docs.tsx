import { Copy, KeyRound, RefreshCw } from 'lucide-react';
import { Link } from 'react-router';
import { Button, buttonClass } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Tabs } from '@/components/ui/tabs';
import { paths } from '@/config/paths';
import { useApiKey } from '@/features/api-key/api/get-api-key';
import { useRotateApiKey } from '@/features/api-key/api/rotate-api-key';
import { useAuth } from '@/lib/auth';
import { toast } from '@/lib/toast';

function Code({ children, label }: { children: string; label: string }) {
  return (
    <pre aria-label={label} tabIndex={0} className="overflow-x-auto rounded-lg bg-slate-950 p-4 text-xs leading-relaxed text-slate-100 sm:text-sm">
      <code>{children}</code>
    </pre>
  );
}

const EXAMPLE_RESPONSE = `{
  "pagination": {
    "total": 134,
    "page": 1,
    "limit": 20,
    "totalPages": 7,
    "hasNext": true,
    "hasPrev": false
  },
  "items": [
    {
      "id": "…",
      "title": "…",
      "summary": "…",
      "content": "…",
      "published_date": "2025-05-01T09:30:00Z",
      "url": "https://…"
    }
  ]
}`;

export function ApiDocs() {
  const { user, isSubscriber, subscriptionKnown } = useAuth();
  const key = useApiKey(user?.id);
  const rotate = useRotateApiKey();
  const origin = window.location.origin;
  const apiKey = key.data?.apiKey ?? 'YOUR_API_KEY';

  const copy = async () => {
    try {
      if (!key.data) throw new Error('no key');
      await navigator.clipboard.writeText(key.data.apiKey);
      toast({ title: 'Copied!', description: 'Your API key is on the clipboard.' });
    } catch {
      toast({ title: 'Copy failed', description: 'Select the key and copy it by hand.', variant: 'destructive' });
    }
  };

  const getNews = `curl -H "X-API-Key: ${apiKey}" \\
  "${origin}/api/v1/news?page=1&limit=20&sort=published_date&order=desc"`;
  const pagination = `# Next page: the answer says whether there is one (hasNext)
curl -H "X-API-Key: ${apiKey}" \\
  "${origin}/api/v1/news?page=2&limit=50&sort=title&order=asc"

# page     default 1
# limit    default 20, at most 100
# sort     published_date | title | id
# order    asc | desc (default desc)`;

  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold sm:text-3xl">API Documentation</h1>
        <p className="mt-1 text-slate-600 dark:text-slate-400">Read Radar&apos;s news from your own tools.</p>
      </div>
      <Card>
        <h2 className="flex items-center gap-2 font-semibold">
          <KeyRound aria-hidden="true" className="h-5 w-5 text-indigo-600" /> Your API key
        </h2>
        {key.isError ? (
          <p className="mt-2 text-sm text-red-600" role="alert">
            Failed to fetch your API key. Please try again later.
          </p>
        ) : (
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <code className="min-w-0 basis-full break-all rounded-md sm:basis-0 sm:flex-1 bg-slate-100 px-3 py-2 text-sm dark:bg-slate-800" data-testid="api-key">
              {key.isPending ? 'Loading…' : key.data?.apiKey}
            </code>
            <Button variant="outline" size="sm" onClick={() => void copy()} disabled={!key.data} aria-label="Copy API key">
              <Copy aria-hidden="true" className="h-4 w-4" /> Copy
            </Button>
            <Button
              variant="ghost"
              size="sm"
              onClick={() =>
                rotate.mutate(undefined, {
                  onSuccess: () => toast({ title: 'API key rotated', description: 'The old key no longer works.' }),
                  onError: () => toast({ title: 'Error', description: 'Something went wrong. Please try again later.', variant: 'destructive' }),
                })
              }
              disabled={!key.data || rotate.isPending}
            >
              <RefreshCw aria-hidden="true" className="h-4 w-4" /> Rotate
            </Button>
          </div>
        )}
      </Card>
      <Card>
        <Tabs
          label="Examples"
          tabs={[
            {
              id: 'get-news',
              label: 'Get News',
              content: (
                <div className="flex flex-col gap-3">
                  <p className="text-sm">Newest items first, 20 per page, with your key in the X-API-Key header.</p>
                  <Code label="Get News request">{getNews}</Code>
                  <h3 className="font-semibold">Response</h3>
                  <Code label="Example response">{EXAMPLE_RESPONSE}</Code>
                </div>
              ),
            },
            {
              id: 'pagination',
              label: 'Pagination',
              content: (
                <div className="flex flex-col gap-3">
                  <p className="text-sm">Walk the pages with page and limit; sort and order choose the order.</p>
                  <Code label="Pagination request">{pagination}</Code>
                </div>
              ),
            },
          ]}
        />
      </Card>
      <Card>
        <h2 className="font-semibold">Rate Limits</h2>
        <ul className="mt-2 list-disc pl-5 text-sm text-slate-700 dark:text-slate-300">
          <li>Free accounts: 100 requests per day</li>
          <li>Premium accounts: 10,000 requests per day</li>
        </ul>
        {subscriptionKnown && !isSubscriber && (
          <Link to={paths.subscribe} className={buttonClass('primary', 'md', 'mt-4')}>
            Join Premium Waitlist
          </Link>
        )}
      </Card>
    </div>
  );
}
