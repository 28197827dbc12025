package dev.turnstile.testkit.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;

/**
 * The harness modules ({@code local}, {@code bench}, {@code faults}) run the topology as a user's
 * code would: through its entry points ({@code dev.turnstile.topology}: {@code TopologyServer},
 * {@code TopologyApplication}, {@code TopologyMain}, {@code DedupStage}), its configuration ({@code
 * .config}) and its generation tools ({@code .generation}), never through its adapters or domain,
 * so that a refactoring inside the topology cannot break a harness, and a harness cannot depend on
 * what a user could not reach.
 */
public final class HarnessBoundary {

  /** The topology's packages no harness class may use. */
  public static final String[] TOPOLOGY_INTERNALS = {
    "dev.turnstile.topology.adapter..", "dev.turnstile.topology.domain.."
  };

  private HarnessBoundary() {}

  /** The main (not test) classes of {@code harnessPackage} and below. */
  public static JavaClasses mainClasses(String harnessPackage) {
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
        .importPackages(harnessPackage);
  }

  /**
   * No class of {@code harnessPackage} depends on the topology's internals.
   *
   * @param exempt fully qualified names of harness classes allowed to: each must say why where it
   *     is given (the fault injector names the methods it breaks)
   */
  public static ArchRule topologyThroughItsEntryPoints(String harnessPackage, String... exempt) {
    Set<String> allowed = Set.of(exempt);
    return noClasses()
        .that()
        .resideInAPackage(harnessPackage + "..")
        .and(
            DescribedPredicate.describe(
                "are not exempt " + allowed, (JavaClass c) -> !allowed.contains(c.getName())))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(TOPOLOGY_INTERNALS)
        .because(
            "a harness runs the topology through TopologyServer, TopologyApplication and its"
                + " configuration, as a user's code would");
  }
}
