// POST and DELETE /api/{favorites,hidden,read}/{id}.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { SET_PATHS } from '@/features/news/api/get-item-set';
import type { SetKind } from '@/features/news/item-sets';
import type { SetChangeResult } from '@/features/news/types';

export interface SetChange {
  kind: SetKind;
  id: string;
  on: boolean;
}

export function updateItemSet({ kind, id, on }: SetChange): Promise<SetChangeResult> {
  const path = `${SET_PATHS[kind]}/${encodeURIComponent(id)}`;
  return on ? api.post<SetChangeResult>(path) : api.delete<SetChangeResult>(path);
}

export function useUpdateItemSet() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateItemSet,
    onSuccess: async (result, change) => {
      // A server that only acknowledged the change locally has nothing new to list.
      if (result?.clientSideOnly) return;
      await queryClient.invalidateQueries({ queryKey: ['item-set', change.kind] });
      // Taking an item out of hidden or read puts it back into the server's feed.
      if (!change.on && change.kind !== 'favorites') await queryClient.invalidateQueries({ queryKey: ['news'] });
    },
  });
}
