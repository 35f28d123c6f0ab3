import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';

export const rotateApiKey = () => unwrap(client.POST('/api/key/rotate'));

export function useRotateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: rotateApiKey,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-key'] }),
  });
}
