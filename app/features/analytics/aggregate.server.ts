import { sql, type SQL } from 'drizzle-orm'
import type { Db, Transaction } from '#app/server/db/database.server.ts'

/**
 * Adds the raw events matching `filter` (a condition on analytics_events) to the daily aggregates the
 * dashboard reads: counts and values per day and event, distinct visitors per day, views and revenue per
 * book, searches that found nothing. Called in the same transaction that writes a batch, so the aggregates
 * never miss or double-count an event; the benchmark builds its aggregates with it too. Every statement is
 * an additive upsert, so several instances may write at once.
 */
export async function aggregateEvents(tx: Db | Transaction, filter: SQL) {
  const events = sql`select *, (occurred_at at time zone 'UTC')::date as day from analytics_events where ${filter}`
  await tx.execute(sql`
    with e as (${events})
    insert into analytics_daily (day, name, currency, events, value_cents)
    select day, name, coalesce(currency, ''), count(*), coalesce(sum(value_cents), 0) from e group by 1, 2, 3
    on conflict (day, name, currency) do update
      set events = analytics_daily.events + excluded.events,
          value_cents = analytics_daily.value_cents + excluded.value_cents`)
  await tx.execute(sql`
    with e as (${events}),
    fresh as (
      insert into analytics_visitor_days (day, visitor)
      select distinct day, visitor from e where visitor is not null
      on conflict do nothing
      returning day
    )
    insert into analytics_daily_visitors (day, visitors)
    select day, count(*) from fresh group by day
    on conflict (day) do update set visitors = analytics_daily_visitors.visitors + excluded.visitors`)
  await tx.execute(sql`
    with e as (${events})
    insert into analytics_daily_books (day, book_id, views, purchases, revenue_cents)
    select day, book_id, sum(views), sum(purchases), sum(revenue) from (
      select day, book_id, 1 as views, 0 as purchases, 0 as revenue
        from e where name = 'view_item' and book_id is not null
      union all
      select e.day, item."bookId", 0, 1, item.cents
        from e cross join lateral jsonb_to_recordset(e.items) as item("bookId" uuid, cents integer)
        where e.name = 'purchase' and e.items is not null
    ) as lines
    group by day, book_id
    on conflict (day, book_id) do update
      set views = analytics_daily_books.views + excluded.views,
          purchases = analytics_daily_books.purchases + excluded.purchases,
          revenue_cents = analytics_daily_books.revenue_cents + excluded.revenue_cents`)
  await tx.execute(sql`
    with e as (${events})
    insert into analytics_daily_zero_searches (day, query, searches)
    select day, query, count(*) from e
      where name = 'search' and result_count = 0 and query is not null
      group by day, query
    on conflict (day, query) do update
      set searches = analytics_daily_zero_searches.searches + excluded.searches`)
}
