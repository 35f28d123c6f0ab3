// The reader's alerts (docs/product.md §15): the list with its badge count, and the changes.
// Every change answers from the server and refreshes the list, so the badge and the page agree.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';
import type { components } from '@/lib/api/schema';
import { ALERTS_KEY, useAlertList } from '@/lib/alerts';

export type Alert = components['schemas']['Alert'];
export type AlertInterval = components['schemas']['AlertInterval'];
export type NewAlert = components['schemas']['NewAlert'];

const ALERTS = ALERTS_KEY;
const MATCHES = [...ALERTS_KEY, 'matches'] as const;

export const useAlerts = useAlertList;

/** What the alerts announced; asking marks it seen, so the list is asked again after. */
export function useAlertMatches() {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: MATCHES,
    queryFn: async ({ signal }) => {
      const hits = await unwrap(client.GET('/api/alerts/matches', { signal }));
      void queryClient.invalidateQueries({ queryKey: ALERTS, exact: true });
      return hits;
    },
  });
}

function useAlertChange<T>(change: (arg: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: change,
    onSettled: () => queryClient.invalidateQueries({ queryKey: ALERTS }),
  });
}

export const useAddAlert = () => useAlertChange((body: NewAlert) => unwrap(client.POST('/api/alerts', { body })));

export const useChangeAlert = () =>
  useAlertChange(({ id, ...body }: { id: string; email?: boolean; interval?: AlertInterval }) =>
    unwrap(client.PATCH('/api/alerts/{id}', { params: { path: { id } }, body })),
  );

export const useRemoveAlert = () =>
  useAlertChange((id: string) => unwrap(client.DELETE('/api/alerts/{id}', { params: { path: { id } } })));

/** The unsubscribe link of an alert's mail: works signed out. */
export const unsubscribe = (token: string) =>
  unwrap(client.POST('/api/unsubscribe', { params: { query: { token } } }));
