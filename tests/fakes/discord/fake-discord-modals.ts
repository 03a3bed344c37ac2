// Modals in the fake Discord: the callback type 9 body checked as Discord checks it (title, custom_id, action rows
// of one text input each), and the MODAL_SUBMIT data a person sends back by filling it in.

/** One text input (component type 4) as the bot asked for it. */
export interface FakeTextInput {
  customId: string;
  /** 1 short, 2 paragraph. */
  style: number;
  label: string;
  required: boolean;
  minLength: number;
  maxLength: number;
}

/** A modal the bot showed in answer to an interaction. */
export interface FakeModal {
  customId: string;
  title: string;
  inputs: FakeTextInput[];
}

export type ModalCheck = { ok: true; modal: FakeModal } | { ok: false; errors: Record<string, string> };

type Body = Record<string, unknown>;

/** Reads a callback type 9 `data`, with Discord's limits; `errors` maps a field's path to what is wrong with it. */
export function readModal(data: Body): ModalCheck {
  const errors: Record<string, string> = {};
  const text = (path: string, value: unknown, min: number, max: number): string => {
    if (typeof value !== 'string') errors[path] = 'This field is required';
    else if (value.length < min || value.length > max)
      errors[path] = `Must be between ${min} and ${max} in length.`;
    return typeof value === 'string' ? value : '';
  };
  const customId = text('data.custom_id', data.custom_id, 1, 100);
  const title = text('data.title', data.title, 1, 45);
  const rows = Array.isArray(data.components) ? (data.components as Body[]) : [];
  if (rows.length < 1 || rows.length > 5) errors['data.components'] = 'Must be between 1 and 5 in length.';
  const inputs: FakeTextInput[] = [];
  rows.forEach((row, index) => {
    const at = `data.components.${index}`;
    const children = Array.isArray(row.components) ? (row.components as Body[]) : [];
    // A modal's action row holds exactly one text input.
    if (row.type !== 1 || children.length !== 1 || children[0]?.type !== 4) {
      errors[at] = 'An action row in a modal holds exactly one text input (type 4).';
      return;
    }
    const input = children[0]!;
    const inputAt = `${at}.components.0`;
    const minLength = typeof input.min_length === 'number' ? input.min_length : 0;
    const maxLength = typeof input.max_length === 'number' ? input.max_length : 4000;
    if (input.style !== 1 && input.style !== 2) errors[`${inputAt}.style`] = 'Value must be one of (1, 2).';
    if (minLength < 0 || maxLength < 1 || maxLength > 4000 || minLength > maxLength)
      errors[`${inputAt}.max_length`] = 'min_length and max_length must lie within 0..4000.';
    if (input.placeholder !== undefined) text(`${inputAt}.placeholder`, input.placeholder, 0, 100);
    inputs.push({
      customId: text(`${inputAt}.custom_id`, input.custom_id, 1, 100),
      style: Number(input.style),
      label: text(`${inputAt}.label`, input.label, 1, 45),
      required: input.required !== false,
      minLength,
      maxLength,
    });
  });
  return Object.keys(errors).length > 0
    ? { ok: false, errors }
    : { ok: true, modal: { customId, title, inputs } };
}

/** Discord's 50035 body: each bad field's path nested, with its `_errors`. */
export function invalidFormBody(errors: Record<string, string>): Body {
  const nested: Body = {};
  for (const [path, message] of Object.entries(errors)) {
    let node = nested;
    for (const key of path.split('.')) {
      node[key] = node[key] ?? {};
      node = node[key] as Body;
    }
    node._errors = [{ code: 'BASE_TYPE_INVALID', message }];
  }
  return { code: 50035, message: 'Invalid Form Body', errors: nested };
}

/**
 * The MODAL_SUBMIT `data` for a person filling in `modal` with `values` (by input custom_id). Like the Discord
 * client, it will not send a required input empty or a value outside the input's lengths; an input left alone
 * comes back as the empty string.
 */
export function modalSubmitData(modal: FakeModal, values: Record<string, string>): Body {
  for (const key of Object.keys(values))
    if (!modal.inputs.some((input) => input.customId === key))
      throw new Error(`the modal ${modal.customId} has no input ${key}`);
  let nextId = 0;
  return {
    custom_id: modal.customId,
    components: modal.inputs.map((input) => {
      const value = values[input.customId] ?? '';
      if (input.required && value === '') throw new Error(`the input ${input.customId} is required`);
      if (value !== '' && (value.length < input.minLength || value.length > input.maxLength))
        throw new Error(
          `the input ${input.customId} takes ${input.minLength} to ${input.maxLength} characters`,
        );
      nextId += 2;
      return {
        type: 1,
        id: nextId - 1,
        components: [{ type: 4, id: nextId, custom_id: input.customId, value }],
      };
    }),
  };
}
