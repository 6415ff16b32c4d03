// Destinations: choosing a provider on the add form puts that provider's starting config in the
// config box (unless something else was typed there) and opens the help of its fields. The form
// works without this: the box then keeps what it has, and every provider's help is listed.

const provider = document.getElementById('dst-provider');
const config = document.getElementById('dst-config');

if (provider instanceof HTMLSelectElement && config instanceof HTMLTextAreaElement) {
  const examples = new Set(Array.from(provider.options, (option) => option.dataset.example ?? ''));
  const showHelp = () => {
    for (const details of document.querySelectorAll('.provider-help details'))
      details.open = details.id === `help-${provider.value}`;
  };
  provider.addEventListener('change', () => {
    const example = provider.selectedOptions[0]?.dataset.example ?? '';
    if (config.value.trim() === '' || examples.has(config.value)) config.value = example;
    showHelp();
  });
  showHelp();
}
