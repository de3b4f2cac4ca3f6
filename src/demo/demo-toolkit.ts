/**
 * The embedded demo toolkit: the OXP spec's example tools plus a few more,
 * chosen so a first run shows every kind of result the bridge translates —
 * numbers, objects, arrays, strings, null output, and tool errors (retryable
 * and not).
 */
import type { LocalTool } from './local-tools.js';

const number = (description: string) => ({ type: 'number', description });

export function demoTools(now: () => Date = () => new Date()): LocalTool[] {
  return [
    {
      id: 'Calculator.Add',
      name: 'Calculator_Add',
      description: 'Adds two numbers together.',
      version: '1.0.0',
      input_schema: { type: 'object', properties: { a: number('The first number to add.'), b: number('The second number to add.') }, required: ['a', 'b'] },
      output_schema: { type: 'number', description: 'The sum of the two numbers.' },
      run: (input) => ({ value: (input.a as number) + (input.b as number) }),
    },
    {
      id: 'Calculator.Divide',
      name: 'Calculator_Divide',
      description: 'Divides one number by another. Dividing by zero is a tool error.',
      version: '1.0.0',
      input_schema: {
        type: 'object',
        properties: { dividend: number('The number to divide.'), divisor: number('The number to divide by.') },
        required: ['dividend', 'divisor'],
      },
      output_schema: { type: 'number', description: 'The quotient.' },
      run: (input) =>
        input.divisor === 0
          ? { error: { message: 'Cannot divide by zero.', developer_message: 'divisor was 0', can_retry: false } }
          : { value: (input.dividend as number) / (input.divisor as number) },
    },
    {
      id: 'Doorbell.Ring',
      name: 'Doorbell_Ring',
      description: 'Rings a doorbell given a doorbell ID. Known doorbells: doorbell42, doorbell84.',
      version: '0.1.0',
      input_schema: {
        type: 'object',
        properties: { doorbell_id: { type: 'string', description: 'The ID of the doorbell to ring.' } },
        required: ['doorbell_id'],
      },
      output_schema: null,
      run: (input) =>
        input.doorbell_id === 'doorbell42' || input.doorbell_id === 'doorbell84'
          ? { value: null }
          : {
              error: {
                message: 'Doorbell ID not found',
                developer_message: `The doorbell with ID '${String(input.doorbell_id)}' does not exist.`,
                can_retry: true,
                additional_prompt_content: 'ids: doorbell42,doorbell84',
                retry_after_ms: 500,
              },
            },
    },
    {
      id: 'System.GetTimestamp',
      name: 'System_GetTimestamp',
      description: 'Retrieves the current system timestamp.',
      version: '1.0.0',
      input_schema: { type: 'object' },
      output_schema: {
        type: 'object',
        properties: { timestamp: { type: 'string', format: 'date-time', description: 'The current system timestamp.' } },
        required: ['timestamp'],
      },
      run: () => ({ value: { timestamp: now().toISOString() } }),
    },
    {
      id: 'Inventory.ListItems',
      name: 'Inventory_ListItems',
      description: 'Lists the items in the demo inventory, optionally only those in stock.',
      version: '1.0.0',
      input_schema: { type: 'object', properties: { in_stock_only: { type: 'boolean', description: 'Only list items with stock.' } } },
      output_schema: {
        type: 'array',
        items: {
          type: 'object',
          properties: { sku: { type: 'string' }, name: { type: 'string' }, stock: { type: 'integer' } },
          required: ['sku', 'name', 'stock'],
        },
      },
      run: (input) => {
        const items = [
          { sku: 'A-100', name: 'Anvil', stock: 3 },
          { sku: 'B-200', name: 'Bellows', stock: 0 },
          { sku: 'C-300', name: 'Chisel', stock: 12 },
        ];
        return { value: input.in_stock_only === true ? items.filter((i) => i.stock > 0) : items };
      },
    },
    {
      id: 'Text.Echo',
      name: 'Text_Echo',
      description: 'Returns the text it is given.',
      version: '1.0.0',
      input_schema: { type: 'object', properties: { text: { type: 'string', description: 'The text to echo.' } }, required: ['text'] },
      output_schema: { type: 'string' },
      run: (input) => ({ value: input.text as string }),
    },
  ];
}
