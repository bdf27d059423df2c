import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Card, SimpleGrid, Text } from '@mantine/core';
import { useMemo } from 'react';
import type { TotalsRow } from '../../../shared/contract';
import { categoryLabels } from '../codes/category';
import { amountsByDay, countsByCategory } from './totals-groups';

const palette = ['indigo.6', 'teal.6', 'orange.6', 'grape.6', 'cyan.6', 'red.6', 'lime.7', 'pink.6', 'yellow.7', 'blue.4'];
const subjectColors = { payin: 'indigo.6', payout: 'orange.6' } as const;

/** Pictures of the totals. Bars are plotted from Number(); the exact figures are in the tables. */
export function TotalsCharts({ rows }: { rows: TotalsRow[] }) {
  const byDay = useMemo(() => amountsByDay(rows), [rows]);
  const byCategory = useMemo(() => countsByCategory(rows, categoryLabels), [rows]);
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }}>
      <Card withBorder data-testid="chart-amounts-by-day">
        <Text fw={500} mb="xs">
          Amount per day and currency
        </Text>
        <BarChart
          h={240}
          data={byDay.data}
          dataKey="day"
          series={byDay.series.map((s, i) => ({ ...s, color: palette[i % palette.length] }))}
          withLegend
          legendProps={{ verticalAlign: 'bottom' }}
          tickLine="y"
          tooltipAnimationDuration={0}
        />
      </Card>
      <Card withBorder data-testid="chart-by-status">
        <Text fw={500} mb="xs">
          Transactions by status category
        </Text>
        <BarChart
          h={240}
          data={byCategory.data}
          dataKey="category"
          series={byCategory.series.map((s) => ({ ...s, color: subjectColors[s.name as keyof typeof subjectColors] }))}
          withLegend
          legendProps={{ verticalAlign: 'bottom' }}
          tickLine="y"
          yAxisProps={{ allowDecimals: false }}
          tooltipAnimationDuration={0}
        />
      </Card>
    </SimpleGrid>
  );
}
