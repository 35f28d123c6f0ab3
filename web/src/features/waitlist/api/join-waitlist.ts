import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';
import { toast } from '@/lib/toast';

export const joinWaitlist = () => unwrap(client.POST('/api/waitlist/join'));

export function useJoinWaitlist() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: joinWaitlist,
    onSuccess: async () => {
      toast({ title: 'Success!', description: "You've joined the waitlist. We'll let you know when subscriptions open." });
      await queryClient.invalidateQueries({ queryKey: ['waitlist-status'] });
    },
    onError: () => toast({ title: 'Error', description: 'Something went wrong. Please try again later.', variant: 'destructive' }),
  });
}
