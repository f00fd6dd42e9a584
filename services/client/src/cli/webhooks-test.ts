/** `webhooks:test`: a test send to one endpoint, to check a receiver end to end. */
import type { CommandContext } from './context';

export async function webhooksTest({ client, print, positionalId }: CommandContext): Promise<number> {
  const sent = await client.webhookEndpoints.test(positionalId('endpoint id'));
  print(sent, () => `ping ${sent.id} queued for ${sent.endpoint_id}\n`);
  return 0;
}
