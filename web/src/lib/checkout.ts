// Starting a checkout (docs/product.md §2 header and docs/product.md §8): the daemon answers with the provider's page,
// which the browser opens after 100 ms.
import { client, unwrap } from '@/lib/api-client';
import { toast } from '@/lib/toast';

export const CHECKOUT_REDIRECT_MS = 100;

export async function createCheckoutSession(): Promise<string> {
  const { url } = await unwrap(client.POST('/api/create-checkout-session'));
  if (!url) throw new Error('Failed to create checkout session - URL not received');
  return url;
}

export async function startCheckout(go: (url: string) => void = (url) => window.location.assign(url)) {
  try {
    const url = await createCheckoutSession();
    setTimeout(() => go(url), CHECKOUT_REDIRECT_MS);
  } catch (error) {
    toast({
      title: 'Checkout Error',
      description: (error as Error)?.message || 'Failed to initiate checkout. Please try again later.',
      variant: 'destructive',
    });
  }
}
