/** The CLI's help text, printed for `help`, `--help` and a usage error. */
export const usage = `usage: npm run mtx -- <command> [flags]

commands:
  wallet                                   balance, pending top-ups and the charges owed over 30 days
  assets --amount-eur <EUR>                what a top-up of this size can be paid in
  topup:create --amount-eur <EUR> [--asset <code> --chain <code>] [--wait]
                                           create a top-up (default: the first stablecoin offered)
                                           (codes as \`assets\` lists them: --asset USDT --chain TRON)
  topup:show <id> [--wait]                 a top-up's status; --wait follows it until paid or failed
  topup:pay-sandbox <id>                   pay a top-up through the local crypto sandbox (npm start only)
  subscription                             plan, seats and what the balance owes next
  accounts                                 trading accounts
  orders:place --file <batch.json>         place a batch as written in the file (the POST /v1/orders body), or:
  orders:place --accounts <ids|all> (--symbol <exact> | --base-symbol <base>) --operation <op> --volume <lots>
               [--price <p>] [--stop-loss <p>] [--take-profit <p>] [--comment <text>]
                                           --base-symbol appends each account's broker suffix (EURUSD → EURUSD.xx)
  orders:close --file <close.json>         close as written in the file (the POST /v1/orders/close body), or:
  orders:close --accounts <ids|all> --symbol <symbol|*> [--match exact|base] [--side long|short|any]
               [--kind position|pending|any] [--volume <lots>]
  orders:modify --file <modify.json>       modify as written in the file (the POST /v1/orders/modify body), or:
  orders:modify --accounts <ids|all> --symbol <symbol|*> [--match exact|base] [--side long|short|any]
               [--kind position|pending|any] [--magic <n>]
               [--stop-loss <p>] [--take-profit <p>] [--price <p>] [--expiration <time>]
                                           moves stops (0 removes one); price and expiration: pending orders only
  batch:show <batch_id> [--wait]           a stored batch; --wait follows it until no outcome is unknown
  batches [--kind orders|close] [--limit <n>] [--starting-after <batch_id>] [--created-gte <time>] [--created-lt <time>] [--all]
                                           stored batches, newest first; --all follows every page
  positions [--accounts <ids|all>] [--symbol <symbol|*>] [--match exact|base] [--side long|short|any]
            [--kind position|pending|any] [--magic <n>]
                                           what is open, as a close with the same selector would take it
  history [--kind deals|orders] [--accounts <ids|all>] [--from <time>] [--to <time>] [--symbol <s>]
          [--limit <n>] [--starting-after <cursor>] [--all]
                                           deals (or orders) across accounts, newest first; --all follows every page
  account:state <account_id>               balance, equity, margin and free margin as the terminal reads them now
  accounts:settings <account_id> [--file <settings.json>] [--symbol-map NAME=SYMBOL,…|none]
               [--max-volume-per-order <lots>|none] [--max-open-positions <n>|none] [--max-total-volume <lots>|none]
               [--allowed-symbols <symbol,…>|none] [--trading-enabled true|false]
                                           the account's symbol map and pre-trade limits; with a flag or --file (the
                                           PATCH body), changes those fields (none resets one) and prints the result
  webhooks:listen [--forward-to <url>] [--events <type,…>] [--port <n>] [--public-url <url>] [--max-events <n>]
                                           a local receiver: makes an endpoint pointing here, checks each delivery's
                                           signature, prints the event and forwards it; deletes the endpoint on exit
  webhooks:test <endpoint_id>              sends a signed ping to that endpoint only (it shows in its deliveries)
  bridge:check --token <t> [--listen host:port] [--login <n> --server <name>] [--platform mt4|mt5]
               [--tls-key <pem> --tls-cert <pem>] [--wait-seconds <s>] [--trade] [--symbol <s>] [--volume <lots>]
                                           conformance of a terminal's EA (docs/terminal-bridge.md): waits for it,
                                           runs every command; --trade (demo account) trades --volume through
                                           open, modify, partial close, close; exit 1 a row failed, 2 no terminal

flags for every command:
  --json                 print the API's JSON instead of tables
  --base-url <url>       default MTX_BASE_URL, else base_url from .data/dev.json
  --key <key>            default MTX_API_KEY, else full_key from .data/dev.json
  --idempotency-key <k>  for orders:place, orders:close and orders:modify (default: a fresh key, reused on retries)
  --timeout-seconds <s>  how long --wait follows (default 120)

exit status: 0 done; 1 error; 3 a batch came back with legs or accounts that did not succeed, or a read left
             an account unread (positions) or not connected (account:state).`;
