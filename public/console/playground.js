// Playground: the estimated cost of the form's task, asked of the server as the form changes.
// Without this script the form works the same; the cost then shows on the task once created.

const DEBOUNCE_MS = 400;
const csrfToken = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

/** The form's fields as the estimate takes them: name → text (the form token stays out of the body). */
function fieldsOf(form) {
  const fields = {};
  for (const [name, value] of new FormData(form)) {
    if (typeof value === 'string' && name !== '_csrf') fields[name] = value;
  }
  return fields;
}

/**
 * The labels of required fields still empty. Until they are filled the form is not a request the
 * service could take: nothing is asked (an untouched form would only earn a 400 and an error).
 */
function missingOf(form) {
  return [...form.elements]
    .filter((el) => el.required && el.value.trim() === '')
    .map((el) => el.labels?.[0]?.textContent.trim() || el.name);
}

/** "A", "A and B", "A, B and C". */
const listed = (names) => (names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

for (const form of document.querySelectorAll('form[data-estimate-url]')) {
  const output = document.getElementById(form.dataset.estimateOutput);
  if (!output) continue;
  let timer;
  let latest = 0;

  // The live region is read aloud on change: only a new text is written.
  const show = (text, available) => {
    if (output.textContent !== text) output.textContent = text;
    output.classList.toggle('unavailable', !available);
  };

  async function estimate() {
    const asked = ++latest;
    const missing = missingOf(form);
    if (missing.length > 0) {
      show(`Fill in ${listed(missing)} to see the estimated cost.`, false);
      return;
    }
    let text;
    let available = false;
    try {
      const res = await fetch(form.dataset.estimateUrl, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
        body: JSON.stringify(fieldsOf(form)),
      });
      const answer = (res.headers.get('content-type') ?? '').includes('application/json') ? await res.json() : null;
      if (answer && typeof answer.cost === 'string') {
        text = `Estimated cost: ${answer.cost} USD`;
        available = true;
      } else if (answer?.error) {
        text = `No estimate yet (${answer.error.code}): ${answer.error.message}`;
      } else {
        text = 'No estimate: reload the page (your session may have ended).';
      }
    } catch {
      text = 'No estimate: the server did not answer.';
    }
    // An answer to an older form is dropped: only the latest question's answer is shown.
    if (asked === latest) show(text, available);
  }

  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(estimate, DEBOUNCE_MS);
  };
  form.addEventListener('input', schedule);
  form.addEventListener('change', schedule);
  estimate();
}
