import { Command, type Option, type ParseOptionsResult } from 'commander';

/** What commander calls while parsing and leaves out of its typings. */
interface ParserSteps {
  missingMandatoryOptionValue(option: Option): void;
  unknownOption(flag: string): void;
}

/**
 * A commander Command that reports a mistyped flag before the required option it then lacks:
 * commander checks required options first, so `keys create --acount demo` said only that
 * `--account` was missing, where a mistyped optional flag gets "(Did you mean --account?)".
 */
export class ImgtaskCommand extends Command {
  /** The first unknown option of the last parse of this command's arguments. */
  private unknownFlag: string | undefined;

  override createCommand(name?: string): ImgtaskCommand {
    return new ImgtaskCommand(name);
  }

  override parseOptions(argv: string[]): ParseOptionsResult {
    const parsed = super.parseOptions(argv);
    // commander reports unknown[0] when it is an option: everything after it is unknown too.
    this.unknownFlag = parsed.unknown[0]?.startsWith('-') ? parsed.unknown[0] : undefined;
    return parsed;
  }

  missingMandatoryOptionValue(option: Option): void {
    const steps = Command.prototype as unknown as ParserSteps;
    if (this.unknownFlag) steps.unknownOption.call(this, this.unknownFlag);
    steps.missingMandatoryOptionValue.call(this, option);
  }
}
