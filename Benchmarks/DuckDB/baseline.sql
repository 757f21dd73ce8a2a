-- What an analyst would write in DuckDB instead of running OfferLab: the same log files and
-- assignment table, per (offering, group): users, converters and net revenue in the report
-- currency. Run by Benchmarks/DuckDB/baseline.py from the data set's folder, which sets the
-- variables `as_of`, `json_logs` and `csv_logs` (the job's log globs) and the table
-- `rates(currency, rate)` from the job file, and leaves out the CSV logs' part, marked below,
-- when the job has none (DuckDB's read_csv needs at least one file).
--
-- It does less than `offerlab run`: no deduplication, no conversion window, refunds are not
-- matched to their transactions, users in several groups are not excluded, malformed lines are
-- skipped without being counted, no daily series, no statistics, nothing written.
WITH raw_events AS (
    SELECT coalesce(user_id, userId) AS user_id, event, ts, price, currency, environment
    FROM read_json(getvariable('json_logs'), format = 'newline_delimited', ignore_errors = true,
        columns = {user_id: 'VARCHAR', userId: 'VARCHAR', event: 'VARCHAR', ts: 'VARCHAR',
                   price: 'VARCHAR', currency: 'VARCHAR', environment: 'VARCHAR'})
    -- CSV logs: begin
    UNION ALL BY NAME
    SELECT user_id, event, ts, price, currency, environment
    FROM read_csv(getvariable('csv_logs'), all_varchar = true, union_by_name = true, ignore_errors = true)
    -- CSV logs: end
),
events AS (
    SELECT user_id, event,
        -- `ts` is ISO 8601 text or epoch milliseconds.
        CASE WHEN regexp_full_match(ts, '-?[0-9]+') THEN make_timestamp(ts::BIGINT * 1000)
             ELSE try_cast(ts AS TIMESTAMPTZ)::TIMESTAMP END AS ts,
        try_cast(price AS DECIMAL(18, 6)) AS price, currency
    FROM raw_events
    WHERE lower(coalesce(environment, '')) <> 'sandbox'
),
assignments AS (
    SELECT user_id, subscription_offering_id, offering_group_id, min(try_cast(assigned_at AS TIMESTAMP)) AS assigned_at
    FROM read_csv('tables/user_offering_assignments.csv.gz', all_varchar = true)
    WHERE try_cast(assigned_at AS TIMESTAMP) < getvariable('as_of')
    GROUP BY ALL
),
per_user AS (
    SELECT a.subscription_offering_id, a.offering_group_id, a.user_id,
        bool_or(e.event = 'purchase') AS converted,
        sum(CASE e.event WHEN 'purchase' THEN e.price WHEN 'renewal' THEN e.price WHEN 'refund' THEN -e.price END * r.rate) AS net
    FROM assignments a
    LEFT JOIN events e ON e.user_id = a.user_id AND e.ts >= a.assigned_at AND e.ts < getvariable('as_of')
    LEFT JOIN rates r ON r.currency = e.currency
    GROUP BY ALL
)
SELECT subscription_offering_id, offering_group_id, count(*) AS users, count_if(converted) AS converters,
    coalesce(sum(net), 0) AS net_revenue
FROM per_user
GROUP BY ALL
ORDER BY ALL;
